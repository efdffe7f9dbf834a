import BenchmarkSupport
import EventSource
import Foundation
import HTTP1Codec
import RealtimeHTTP
// SSE benchmark: parser throughput and linearity, and end-to-end events/s against a local
// server, next to Python's httpx-sse. Release build only; prints a table. Run
// `scripts/bench-sse.sh` (it starts the server and the Python client).
//
//   SSEBenchmark parser
//   SSEBenchmark parser-large          (one 64 MiB event five times, for profiling)
//   SSEBenchmark sequence              (serverSentEvents() on in-memory byte sequences)
//   SSEBenchmark client <port> <events> <size> [native|urlsession] [asyncstream]
//                                                (SSE_BENCH_RUNS=N: N runs, the median run's row
//                                                and the best run's)
//   SSEBenchmark client-large <port> <size> [native|urlsession]  (one event of <size> data
//                                                 bytes, 10 runs, MB/s from .open to the event)
//   SSEBenchmark client-memory <events> <size> [asyncstream]  (the client without sockets:
//                                                 pre-built 64 KiB body chunks from memory)
// `asyncstream` iterates the events through `AsyncStream(unfolding:)` around the data task's
// own iterator: what `events()` would cost if it returned `AsyncStream<EventType>` as
// Recouse's does (pull-based, so backpressure is kept).
import RealtimeTime
import SSEProtocol

// MARK: - Parser measurement

/// Parses `input` in `chunkSize` pieces; returns (thread CPU seconds, events, data bytes).
func parse(_ input: [UInt8], chunkSize: Int) -> (Double, Int, Int) {
    var parser = SSEParser(configuration: .init(maximumLineLength: 1 << 30, maximumEventSize: 1 << 30))
    var events = 0
    var bytes = 0
    let cpuStart = Measure.threadCPUSeconds()
    do {
        input.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = min(offset + chunkSize, raw.count)
                try? parser.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<end])) { output in
                    if case .event(let event) = output {
                        events += 1
                        bytes += event.data.utf8.count
                    }
                }
                offset = end
            }
        }
    }
    return (Measure.threadCPUSeconds() - cpuStart, events, bytes)
}

/// The best of `runs` timings.
func best(_ runs: Int, _ body: () -> (Double, Int, Int)) -> (Double, Int, Int) {
    var result = body()
    for _ in 1..<runs {
        let next = body()
        if next.0 < result.0 { result = next }
    }
    return result
}

func smallEvents(totalBytes: Int) -> [UInt8] {
    let event = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 56) + Array("\n\n".utf8)
    precondition(event.count == 64)
    var input: [UInt8] = []
    input.reserveCapacity(totalBytes)
    for _ in 0..<(totalBytes / 64) { input += event }
    return input
}

func largeEvent(totalBytes: Int) -> [UInt8] {
    Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: totalBytes - 8) + Array("\n\n".utf8)
}

func row(_ columns: [String]) {
    print(
        columns.enumerated().map { index, column in
            index == 0
                ? column.padding(toLength: 34, withPad: " ", startingAt: 0)
                : String(repeating: " ", count: max(0, 16 - column.count)) + column
        }.joined())
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// The task's events as `AsyncStream<EventSource.EventType>` (pulled on demand).
func asyncStream(_ task: EventSource.DataTask) -> AsyncStream<EventSource.EventType> {
    task.events().asyncStream
}

/// Counts the events of `task`, through `events()` or an `AsyncStream`; the error text if any.
func consume(_ task: EventSource.DataTask, asAsyncStream: Bool) async -> (Int, String?) {
    var received = 0
    var failure: String?
    if asAsyncStream {
        for await event in asyncStream(task) {
            switch event {
            case .event: received += 1
            case .error(let error): failure = "\(error)"
            case .open, .closed: break
            }
        }
    } else {
        for await event in task.events() {
            switch event {
            case .event: received += 1
            case .error(let error): failure = "\(error)"
            case .open, .closed: break
            }
        }
    }
    return (received, failure)
}

// MARK: - Parser

func parserBenchmark() {
    let mib = 1 << 20
    print("SSE parser (SSEProtocol.SSEParser), 64 KiB chunks, best of 5, thread CPU time")
    row(["case", "input MiB", "CPU seconds", "MB/s", "events/s"])
    var results: [String: Double] = [:]
    for (name, builder) in [("64-byte events", smallEvents(totalBytes:)), ("one large event", largeEvent(totalBytes:))] {
        for size in [16 * mib, 64 * mib] {
            let input = builder(size)
            let (time, events, _) = best(5) { parse(input, chunkSize: 64 << 10) }
            results["\(name) \(size)"] = time
            row([
                "\(name)", "\(size / mib)", format(time, 4), format(Double(size) / time / 1e6),
                format(Double(events) / time, 0),
            ])
        }
        let ratio = results["\(name) \(64 * mib)"]! / results["\(name) \(16 * mib)"]!
        row(["  linearity (4x input)", "", "", "", "x\(format(ratio, 2))"])
    }
    let small = Double(64 * mib) / results["64-byte events \(64 * mib)"]! / 1e6
    let large = Double(64 * mib) / results["one large event \(64 * mib)"]! / 1e6
    print(
        "targets: >= 300 MB/s on 64-byte events (\(small >= 300 ? "met" : "NOT met")), "
            + ">= 1000 MB/s on the large event (\(large >= 1000 ? "met" : "NOT met")), linearity <= x4.40")
}

// MARK: - End to end

func clientBenchmark(
    port: Int, events expected: Int, size: Int, transport: EventSource.Transport, name: String,
    asAsyncStream: Bool, runs: Int
) async {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/flood?count=\(expected)&size=\(size)")!)
    request.timeoutInterval = 60
    // (events, seconds, CPU seconds) of each run.
    var results: [(received: Int, elapsed: Double, cpu: Double)] = []
    for _ in 0..<runs {
        let eventSource = EventSource(timeoutInterval: 60, transport: transport)
        let task = eventSource.dataTask(for: request)
        let cpuStart = Measure.processCPUSeconds()
        let start = MonotonicInstant.now
        let (received, failure) = await consume(task, asAsyncStream: asAsyncStream)
        let elapsed = Measure.seconds(MonotonicInstant.now - start)
        results.append((received, elapsed, Measure.processCPUSeconds() - cpuStart))
        if let failure { print("error: \(failure)") }
    }
    // By events/s: the median run, and with several runs the best one too.
    results.sort { Double($0.received) / $0.elapsed < Double($1.received) / $1.elapsed }
    var rows = [("swift \(name)\(asAsyncStream ? ", AsyncStream" : "")", results[results.count / 2])]
    if runs > 1 { rows.append(("swift \(name), best of \(runs)", results[results.count - 1])) }
    for (label, run) in rows {
        let bytes = Double(run.received) * Double(size + 8)
        row([
            label, "\(run.received)", format(run.elapsed, 3), format(Double(run.received) / run.elapsed, 0),
            format(run.cpu / Double(max(run.received, 1)) * 1e6, 3), format(bytes / run.elapsed / 1e6, 0),
            format(bytes / max(run.cpu, 1e-9) / 1e6, 0),
        ])
    }
}

/// One event of `size` data bytes, `runs` times: the time from the `.open` event to the event
/// (the server builds its payload before it answers, so that is not in it). Prints the best
/// and the median MB/s over the event's bytes.
func largeEventBenchmark(port: Int, size: Int, runs: Int, transport: EventSource.Transport, name: String) async {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/flood?count=1&size=\(size)")!)
    request.timeoutInterval = 60
    var rates: [Double] = []
    for _ in 0..<runs {
        var eventSource = EventSource(timeoutInterval: 60, transport: transport)
        eventSource.maximumEventSize = size + 64
        let task = eventSource.dataTask(for: request)
        var opened = MonotonicInstant.now
        var rate: Double?
        for await event in task.events() {
            switch event {
            case .open: opened = MonotonicInstant.now
            case .event(let event):
                let seconds = Measure.seconds(MonotonicInstant.now - opened)
                precondition(event.data?.utf8.count == size, "the event has \(event.data?.utf8.count ?? 0) bytes")
                rate = Double(size + 8) / seconds / 1e6
            case .error(let error): print("error: \(error)")
            case .closed: break
            }
        }
        if let rate { rates.append(rate) }
    }
    guard !rates.isEmpty else { return }
    rates.sort()
    row([
        "swift \(name), one \((size + 8) >> 20) MiB event", "\(runs) runs", "", "best \(format(rates.last!, 0))",
        "median \(format(rates[rates.count / 2], 0))", "", "",
    ])
}

// MARK: - End to end without the network

/// A transport answering every request with 200 `text/event-stream` and a body of
/// pre-built 64 KiB chunks held in memory: what the EventSource layer costs per event,
/// without sockets, the event loop or HTTP framing.
final class InMemoryTransport: HTTPTransport {
    let chunks: [[UInt8]]

    init(chunks: [[UInt8]]) { self.chunks = chunks }

    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        return HTTPClientResponse(
            status: 200, reason: "OK", headers: headers, url: request.url,
            body: HTTPResponseBody(source: Source(chunks: self.chunks)))
    }

    final class Source: HTTPBodySource, @unchecked Sendable {
        // @unchecked: one consumer calls next() at a time (the HTTPBodySource contract).
        private let chunks: [[UInt8]]
        private var index = 0
        init(chunks: [[UInt8]]) { self.chunks = chunks }
        func next() async throws(HTTPClientError) -> [UInt8]? {
            guard self.index < self.chunks.count else { return nil }
            defer { self.index += 1 }
            return self.chunks[self.index]
        }
        func cancel() {}
    }
}

func memoryClientBenchmark(events expected: Int, size: Int, asAsyncStream: Bool) async {
    let event = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: size) + Array("\n\n".utf8)
    var body: [UInt8] = []
    body.reserveCapacity(event.count * expected)
    for _ in 0..<expected { body += event }
    let chunkSize = 64 << 10
    let chunks = stride(from: 0, to: body.count, by: chunkSize).map { Array(body[$0..<min($0 + chunkSize, body.count)]) }
    let transport = InMemoryTransport(chunks: chunks)
    let request = URLRequest(url: URL(string: "http://127.0.0.1:1/flood")!)
    var results: [Double] = []
    for _ in 0..<5 {
        let task = EventSource(timeoutInterval: 60, transport: .custom(transport)).dataTask(for: request)
        let cpuStart = Measure.processCPUSeconds()
        let (received, _) = await consume(task, asAsyncStream: asAsyncStream)
        precondition(received == expected, "received \(received) of \(expected) events")
        results.append((Measure.processCPUSeconds() - cpuStart) / Double(received) * 1e6)
    }
    results.sort()
    row([
        "swift in memory\(asAsyncStream ? ", AsyncStream" : "")", "\(expected)", "", "median of 5",
        format(results[2], 3), "", format(Double(size + 8) / results[2], 0),
    ])
}

// MARK: - Byte sequences

/// An in-memory `AsyncSequence` of the chunks (or, with `Element == UInt8`, the bytes) of a body.
struct MemoryChunks<Element: Sendable>: AsyncSequence, Sendable {
    let elements: [Element]

    func makeAsyncIterator() -> Iterator { Iterator(elements: self.elements, index: 0) }

    struct Iterator: AsyncIteratorProtocol {
        let elements: [Element]
        var index: Int

        mutating func next() async -> Element? {
            guard self.index < self.elements.count else { return nil }
            defer { self.index += 1 }
            return self.elements[self.index]
        }
    }
}

/// Thread CPU seconds, events and data bytes of reading `sequence` through `serverSentEvents()`.
func parseSequence<S: AsyncSequence>(_ sequence: S) async -> (Double, Int, Int) where S.Element == ServerEvent {
    var events = 0
    var bytes = 0
    let cpuStart = Measure.processCPUSeconds()
    do {
        for try await event in sequence {
            events += 1
            bytes += event.data?.utf8.count ?? 0
        }
    } catch {
        print("error: \(error)")
    }
    return (Measure.processCPUSeconds() - cpuStart, events, bytes)
}

/// `serverSentEvents()` over in-memory byte sequences, beside the parser alone: what the
/// public byte-sequence parser adds (an `AsyncSequence` step per chunk and per event, a
/// `ServerEvent` per event).
func sequenceBenchmark() async {
    let mib = 1 << 20
    print("serverSentEvents() on in-memory byte sequences, best of 5, process CPU time")
    row(["case", "input MiB", "CPU seconds", "MB/s", "events/s"])
    for (name, builder) in [("64-byte events", smallEvents(totalBytes:)), ("one large event", largeEvent(totalBytes:))] {
        let size = 16 * mib
        let input = builder(size)
        let chunks = stride(from: 0, to: input.count, by: 64 << 10).map { Array(input[$0..<min($0 + (64 << 10), input.count)]) }
        var results: [(String, (Double, Int, Int))] = []
        var best: (Double, Int, Int)?
        for _ in 0..<5 {
            let run = await parseSequence(MemoryChunks(elements: chunks).serverSentEvents(maximumEventSize: 1 << 30))
            if best == nil || run.0 < best!.0 { best = run }
        }
        results.append(("64 KiB arrays", best!))
        if name == "64-byte events" {
            best = nil
            for _ in 0..<5 {
                let run = await parseSequence(MemoryChunks(elements: input).serverSentEvents(maximumEventSize: 1 << 30))
                if best == nil || run.0 < best!.0 { best = run }
            }
            results.append(("single bytes", best!))
        }
        for (kind, (time, events, _)) in results {
            row([
                "\(name), \(kind)", "\(size / mib)", format(time, 4), format(Double(size) / time / 1e6),
                format(Double(events) / time, 0),
            ])
        }
    }
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "parser":
    parserBenchmark()
case "sequence":
    await sequenceBenchmark()
case "parser-large":
    // One 64 MiB event, five times (for profiling).
    let input = largeEvent(totalBytes: 64 << 20)
    for _ in 0..<5 {
        let (time, _, _) = parse(input, chunkSize: 64 << 10)
        print("64 MiB event: \(format(Double(64 << 20) / time / 1e6)) MB/s")
    }
case "client":
    let port = Int(arguments[2])!
    let events = Int(arguments[3])!
    let size = Int(arguments[4])!
    let kind = arguments.count > 5 ? arguments[5] : "native"
    await clientBenchmark(
        port: port, events: events, size: size,
        transport: kind == "urlsession" ? .urlSession : .native, name: kind,
        asAsyncStream: arguments.count > 6 && arguments[6] == "asyncstream",
        runs: Int(ProcessInfo.processInfo.environment["SSE_BENCH_RUNS"] ?? "") ?? 1)
case "client-large":
    let port = Int(arguments[2])!
    let size = Int(arguments[3])!
    let kind = arguments.count > 4 ? arguments[4] : "native"
    await largeEventBenchmark(
        port: port, size: size, runs: 10, transport: kind == "urlsession" ? .urlSession : .native, name: kind)
case "client-memory":
    await memoryClientBenchmark(
        events: Int(arguments[2])!, size: Int(arguments[3])!,
        asAsyncStream: arguments.count > 4 && arguments[4] == "asyncstream")
default:
    print("usage: SSEBenchmark parser | client <port> <events> <size> [native|urlsession]")
}
