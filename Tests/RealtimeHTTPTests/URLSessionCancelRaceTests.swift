import Foundation
import TestSupport
import Testing

@testable import RealtimeHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cancel that lands about when the task completes on its own: the body ends either whole
/// or `.cancelled`, never cut short as if complete (a task whose `cancel()` came too late to
/// act once ended cleanly with the bytes after the cancel dropped), and a second response head
/// a cancelled FoundationNetworking task reports is not a failure of its own. The same race,
/// on swift-corelibs-foundation, could also trap in TaskRegistry ("a task that in not in the
/// registry"); see `URLSessionTransportDelegate.urlSession(_:task:didCompleteWithError:)`.
@Suite(TestTimeLimit.minutes(2)) struct URLSessionCancelRaceTests {
    /// Rounds of one exchange each (`REALTIME_CANCEL_RACE_ROUNDS`, default 300).
    static let rounds = Int(ProcessInfo.processInfo.environment["REALTIME_CANCEL_RACE_ROUNDS"] ?? "") ?? 300

    enum Body: String, CaseIterable, CustomTestStringConvertible {
        /// Two chunks of 10 bytes: the cancel lands about when the task ends on its own.
        case short = "/chunked?count=2&size=10"
        /// 64 chunks of 4 KiB: the cancel lands while data is still arriving.
        case streaming = "/chunked?count=64&size=4096"

        var bytes: Int { self == .short ? 20 : 64 * 4096 }
        var testDescription: String { "\(self)" }
    }

    @Test(arguments: Body.allCases)
    func aCancelRacingTheTasksOwnCompletionEndsTheExchange(_ kind: Body) async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport(bufferLimit: 64 * 1024)
        var generator = SplitMix64(seed: 0x5eed)
        var completed = 0
        var cancelled = 0
        for _ in 0..<Self.rounds {
            let delay = Int(generator.next() % 1500)
            let request = HTTPClientRequest(url: server.url(kind.rawValue))
            let response = try await transport.execute(request)
            let body = response.body
            // The reader drains the body while the canceller cancels it about when it ends.
            async let read = Self.drain(body)
            try await Task.sleep(nanoseconds: UInt64(delay) * 1000)
            body.cancel()
            switch await read {
            case .success(let bytes):
                #expect(bytes == kind.bytes)
                completed += 1
            case .failure(let error):
                #expect(error.kind == .cancelled, "\(error)")
                cancelled += 1
            }
        }
        #expect(completed + cancelled == Self.rounds)
        print("cancel race: \(completed) exchanges ended on their own, \(cancelled) cancelled")
        // Every task ended: none is left in the session's delegate.
        #expect(await ProcessResources.eventually { transport.sessions[0].delegate.liveBridges.isEmpty })
    }

    static func drain(_ body: HTTPResponseBody) async -> Result<Int, HTTPClientError> {
        var bytes = 0
        do {
            while let chunk = try await body.source.next() { bytes += chunk.count }
            return .success(bytes)
        } catch {
            return .failure(error)
        }
    }
}
