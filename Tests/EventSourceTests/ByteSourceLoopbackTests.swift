import Foundation
import RealtimeHTTP
import TestSupport
import Testing

@testable import EventSource

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `serverSentEvents()` on bytes that did not come from a data task: a file read in chunks,
/// and the bodies of real servers (aiohttp-sse, sse-starlette) read by three HTTP clients: the
/// native one, the URLSession transport, and a plain `URLSession` data delegate.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct ByteSourceLoopbackTests {
    // MARK: - A file

    @Test func aFileReadInChunksGivesItsEvents() async throws {
        var text = "\u{FEFF}: recorded stream\r\n"
        for index in 1...500 { text += "id: \(index)\r\nevent: tick\r\ndata: line \(index)\r\ndata: second line\r\n\r\n" }
        text += "data: unfinished at the end of the file"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sse-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        for chunkSize in [1, 7, 4096] {
            var events: [ServerEvent] = []
            for try await event in try FileChunks.read(url, chunkSize: chunkSize).serverSentEvents() {
                events.append(event)
            }
            #expect(events.count == 500, "chunk size \(chunkSize)")
            #expect(events.first == ServerEvent(id: "1", event: "tick", data: "line 1\nsecond line"))
            #expect(events.last == ServerEvent(id: "500", event: "tick", data: "line 500\nsecond line"))
        }
        // The same file byte by byte (a `UInt8` sequence, gathered up to each line end).
        var count = 0
        for try await _ in try FileChunks.read(url, chunkSize: 4096).flatMapBytes().serverSentEvents() { count += 1 }
        #expect(count == 500)
    }

    // MARK: - Real servers' bodies

    enum Client: String, CaseIterable, Sendable {
        case native, urlSessionTransport, urlSessionDelegate
    }

    static let clients: [Client] = BuildConfiguration.noNativeStack ? [.urlSessionTransport, .urlSessionDelegate] : Client.allCases

    static let servers = ["sse_aiohttp_server.py", "sse_starlette_server.py"]

    /// The events `client` reads from `url`'s body through `serverSentEvents()`.
    static func events(_ url: URL, client: Client, including extras: EventSource.Extras? = nil) async throws -> [String] {
        var result: [String] = []
        func collect<S: AsyncSequence>(_ body: S) async throws where S.Element == [UInt8] {
            if let extras {
                for try await element in body.serverSentEvents(including: extras) {
                    if let comment = element.comment { result.append("comment(\(comment.prefix(6)))") }
                    if let event = element.event { result.append(event.summary) }
                }
            } else {
                for try await event in body.serverSentEvents() { result.append(EventSource.EventType.event(event).summary) }
            }
        }
        switch client {
        case .native, .urlSessionTransport:
            let transport: any HTTPTransport = client == .native ? HTTPClient() : URLSessionHTTPTransport()
            let response = try await transport.execute(HTTPClientRequest(url: url, headers: ["Accept": "text/event-stream"]))
            #expect(response.status == 200)
            try await collect(response.body)
        case .urlSessionDelegate:
            let body = URLSessionDataStream.start(URLRequest(url: url))
            if let extras {
                for try await element in body.serverSentEvents(including: extras) {
                    if let comment = element.comment { result.append("comment(\(comment.prefix(6)))") }
                    if let event = element.event { result.append(event.summary) }
                }
            } else {
                for try await event in body.serverSentEvents() { result.append(EventSource.EventType.event(event).summary) }
            }
        }
        return result
    }

    @Test(arguments: ByteSourceLoopbackTests.servers, ByteSourceLoopbackTests.clients)
    func aServersBodyGivesTheDataTaskEvents(script: String, client: Client) async throws {
        let server = try await TestServer.start(script)
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/events?count=5")!
        let name = script.contains("aiohttp") ? "aiohttp" : "starlette"
        let expected = (1...5).map { "event(tick,\($0),\(name) \($0))" }
        let dataTaskEvents = await summaries(of: EventSource(timeoutInterval: 10).dataTask(for: URLRequest(url: url)))
        #expect(dataTaskEvents == ["open"] + expected + ["closed"])
        #expect(try await Self.events(url, client: client) == expected)
    }

    /// sse-starlette's keep-alive comments (`: ping - <time>`, CRLF) arrive before the event.
    /// The server's ping task runs beside its generator, so one more ping can follow the event
    /// before the server ends the stream (the fifth 0.1 s ping and the generator's 0.5 s sleep
    /// end together): the event need not be last, but at most one ping follows it.
    @Test(arguments: ByteSourceLoopbackTests.clients)
    func commentsOfARealServer(client: Client) async throws {
        let server = try await TestServer.start("sse_starlette_server.py")
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/ping?seconds=0.5")!
        let elements = try await Self.events(url, client: client, including: .comments)
        let pong = try #require(elements.firstIndex(of: "event(-,-,pong)"), "\(elements)")
        #expect(pong >= 2, "\(elements)")
        #expect(elements.count - pong - 1 <= 1, "\(elements)")
        var others = elements
        others.remove(at: pong)
        #expect(others.allSatisfy { $0 == "comment(ping -)" }, "\(elements)")
    }
}

// MARK: - Byte sources for the tests

/// A file's bytes as `Data` chunks, read on a thread of its own (the reads block, and the
/// cooperative pool must not).
enum FileChunks {
    static func read(_ url: URL, chunkSize: Int) throws -> AsyncThrowingStream<Data, any Error> {
        let handle = try FileHandle(forReadingFrom: url)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self, bufferingPolicy: .unbounded)
        let thread = Thread {
            defer { handle.closeFile() }
            while true {
                // `readData(ofLength:)`: `read(upToCount:)` needs iOS 13.4.
                let chunk = handle.readData(ofLength: chunkSize)
                if chunk.isEmpty { break }
                continuation.yield(chunk)
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}

extension AsyncThrowingStream where Element == Data, Failure == any Error {
    /// The chunks' bytes one by one.
    func flatMapBytes() -> DataBytes { DataBytes(base: self) }
}

/// The bytes of a `Data` chunk sequence, one `UInt8` at a time.
struct DataBytes: AsyncSequence {
    typealias Element = UInt8
    let base: AsyncThrowingStream<Data, any Error>

    func makeAsyncIterator() -> Iterator { Iterator(base: self.base.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator
        var pending = Data().makeIterator()

        mutating func next() async throws -> UInt8? {
            while true {
                if let byte = self.pending.next() { return byte }
                guard let chunk = try await self.base.next() else { return nil }
                self.pending = chunk.makeIterator()
            }
        }
    }
}

/// A response body read by a plain `URLSession` data delegate, as `Data` chunks: the way any
/// app reads a streamed body without `URLSession.bytes` (which Linux lacks).
final class URLSessionDataStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the continuation is Sendable; the delegate is called on the session's queue.
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation

    private init(_ continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.continuation = continuation
    }

    static func start(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self, bufferingPolicy: .unbounded)
        let delegate = URLSessionDataStream(continuation)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            session.finishTasksAndInvalidate()
        }
        task.resume()
        return stream
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        self.continuation.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            self.continuation.finish(throwing: error)
        } else {
            self.continuation.finish()
        }
    }
}
