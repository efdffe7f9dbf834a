import Foundation
import TestSupport
import Testing

@testable import EventSource

/// EventSource against `sse_raw_server.py` paths that try to exhaust or confuse it: a line
/// that never ends fails with the event size limit at bounded memory, invalid UTF-8 is
/// replaced (WHATWG decodes the stream as UTF-8 with replacement), and the process goes on.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct EventSourceHostileServerTests {
    private func request(_ server: TestServer, _ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
    }

    /// Whether the flood runs over URLSession: only with `REALTIME_URLSESSION_HOSTILE=1` (set by
    /// `make test-apple-config`), because swift-corelibs-foundation can trap ("Received body
    /// data, but no transfer in progress", NativeProtocol.swift:69) when a task is cancelled
    /// while a fast server is still sending, which ends the whole test process (see
    /// docs/RELIABILITY.md; `scripts/run-tests.py` knows that trap and reruns its shard, counted).
    /// Without it the URLSession case is reported as a skip, with this reason.
    static let floodOverURLSession = ProcessInfo.processInfo.environment["REALTIME_URLSESSION_HOSTILE"] == "1"

    @Test(.enabled(if: !BuildConfiguration.noNativeStack, "REALTIME_NO_NATIVE_STACK: no native transport in this build"))
    func aLineThatNeverEndsStopsAtTheEventSizeLimitOverTheNativeTransport() async throws {
        try await self.aLineThatNeverEndsStopsAtTheEventSizeLimit(transport: .native)
    }

    @Test(
        .enabled(
            if: Self.floodOverURLSession,
            "the flood runs over URLSession only with REALTIME_URLSESSION_HOSTILE=1 (make test-apple-config sets it): a corelibs trap, see floodOverURLSession"
        ))
    func aLineThatNeverEndsStopsAtTheEventSizeLimitOverURLSession() async throws {
        try await self.aLineThatNeverEndsStopsAtTheEventSizeLimit(transport: .urlSession)
    }

    private func aLineThatNeverEndsStopsAtTheEventSizeLimit(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        var eventSource = EventSource(timeoutInterval: 10, transport: transport)
        eventSource.maximumEventSize = 1 << 20
        let (events, peak) = await PeakMemory.measure("SSE line that never ends, \(transport) (limit 1 MiB)") {
            await summaries(of: eventSource.dataTask(for: self.request(server, "/line-never-ends")))
        }
        #expect(events == ["open", "error(EventStreamLimitError)", "closed"])
        if case .native = transport.kind {
            #expect(peak.growthKiB < 40 << 10, "\(peak)")
        }
        // (Over URLSession on Linux the peak is what libcurl receives before the cancel takes
        // effect, outside this package: reported in docs/RELIABILITY.md.)
        // The connection was dropped (the server's writes fail) and the process still works.
        let next = await summaries(
            of: EventSource(timeoutInterval: 10, transport: transport)
                .dataTask(for: self.request(server, "/events?count=1")))
        #expect(next == ["open", "event(tick,1,event 1)", "closed"])
    }

    @Test(arguments: LoopbackTests.transports)
    func invalidUTF8IsReplacedNotFatal(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let events = await summaries(
            of: EventSource(timeoutInterval: 10, transport: transport)
                .dataTask(for: self.request(server, "/invalid-utf8")))
        #expect(events == ["open", "event(-,-,ok \u{FFFD}\u{FFFD} end)", "event(-,-,\u{E9} after)", "closed"])
    }
}
