import Foundation
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@testable import RealtimeHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A dropped ``URLSessionHTTPTransport`` must leave nothing behind once its exchanges ended:
/// its URLSession, the session's delegate and every bridge are released, whatever state the
/// data tasks were in (over their buffer limit, so suspended where the platform can pause a
/// transfer; cancelled at a redirect; timed out).
/// LeakSanitizer found a whole session left behind (docs/RELIABILITY.md); these tests see it
/// without a sanitizer, through weak references.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct URLSessionTransportLifetimeTests {
    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case suspendedThenCancelled
        case suspendedThenDropped
        case redirectAcrossOrigins
        case redirectNotFollowedDroppedUnread
        case bodyDroppedUnread
        case bodyReadToEnd
        case idleTimeout
        case callerCancelled
        case refused

        var testDescription: String { self.rawValue }
    }

    /// How many times each scenario runs (`REALTIME_LIFETIME_REPEAT`, default 3).
    static let repeats = Int(ProcessInfo.processInfo.environment["REALTIME_LIFETIME_REPEAT"] ?? "") ?? 3

    @Test(arguments: Scenario.allCases)
    func aDroppedTransportReleasesItsSession(_ scenario: Scenario) async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        for round in 0..<Self.repeats {
            weak var session: URLSession?
            weak var delegate: URLSessionTransportDelegate?
            do {
                let transport = URLSessionHTTPTransport(bufferLimit: 64 * 1024)
                session = transport.sessions[0].session
                delegate = transport.sessions[0].delegate
                try await Self.run(scenario, on: transport, delegate: transport.sessions[0].delegate, server: server)
            }
            let released = await ProcessResources.eventually(timeout: .seconds(10)) { session == nil && delegate == nil }
            #expect(
                released,
                """
                round \(round): session \(session == nil ? "released" : "alive"), \
                delegate \(delegate == nil ? "released" : "alive"), \
                bridges: \(delegate?.liveBridges.map(\.debugState) ?? [])
                """)
            if !released { return }
        }
    }

    final class Target: HTTPIdleTimeoutTarget {
        let timers: any TimerSource = EventLoopGroup.shared.next()
        func idleTimeoutExpired() {}
    }

    /// The cycle behind the recorded leak: the bridge's `didComplete` stops its watchdog, and a
    /// `next()` that started waiting just before the completion was recorded began a wait on the
    /// stopped watchdog, which then held the bridge (its owner) for good, and through the
    /// bridge's task the whole session. A stopped watchdog must keep no target.
    @Test func aWaitOnAStoppedWatchdogKeepsNoTarget() {
        let watchdog = HTTPIdleWatchdog(timeout: .seconds(30))
        weak var released: Target?
        do {
            let target = Target()
            released = target
            watchdog.stop()
            watchdog.beginWait(on: target)
        }
        #expect(released == nil, "the stopped watchdog kept its target")
        withExtendedLifetime(watchdog) {}
    }

    static func run(
        _ scenario: Scenario, on transport: URLSessionHTTPTransport,
        delegate: URLSessionTransportDelegate, server: TestServer
    ) async throws {
        switch scenario {
        case .suspendedThenCancelled, .suspendedThenDropped:
            let response = try await transport.execute(HTTPClientRequest(url: server.url("/forever?delay=2")))
            var iterator = response.body.makeAsyncIterator()
            // Where the task cannot be suspended (swift-corelibs-foundation), the queue can
            // reach the bridge's hard limit before this first read: `.bodyTooLarge`.
            let first = await failureKind { _ = try await iterator.next() }
            let pausable = URLSessionTaskBridge.suspensionPausesTheTransfer
            #expect(first == .none || (!pausable && first == .http(.bodyTooLarge)), "\(first)")
            let suspended = await ProcessResources.eventually { delegate.liveBridges.first?.isSuspended == true }
            #expect(suspended, "the bridge never asked for a suspension")
            if scenario == .suspendedThenCancelled { response.body.cancel() }
        case .redirectAcrossOrigins:
            let target = server.url("/echo", host: "localhost").absoluteString
            let response = try await transport.execute(
                HTTPClientRequest(
                    url: server.url("/redirect?status=302&to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"),
                    headers: ["Authorization": "Bearer secret"], maxRedirects: 3))
            let echo = try await response.decode(EchoReply.self)
            #expect(echo.path == "/echo")
        case .redirectNotFollowedDroppedUnread:
            let response = try await transport.execute(HTTPClientRequest(url: server.url("/redirect?status=302&to=/echo")))
            #expect(response.status == 302)
        case .bodyDroppedUnread:
            let response = try await transport.execute(HTTPClientRequest(url: server.url("/length?size=2000000")))
            #expect(response.status == 200)
        case .bodyReadToEnd:
            let response = try await transport.execute(HTTPClientRequest(url: server.url("/length?size=300000")))
            #expect(try await response.body.collect(upTo: 1 << 20).count == 300_000)
        case .idleTimeout:
            let kind = await failureKind {
                _ = try await transport.execute(HTTPClientRequest(url: server.url("/slow"), idleTimeout: .milliseconds(300)))
            }
            #expect(kind == .http(.timedOut))
        case .callerCancelled:
            let task = Task {
                await failureKind { _ = try await transport.execute(HTTPClientRequest(url: server.url("/slow"))) }
            }
            let started = await ProcessResources.eventually { !delegate.liveBridges.isEmpty }
            #expect(started)
            task.cancel()
            #expect(await task.value == .http(.cancelled))
        case .refused:
            let port = try unusedLocalPort()
            let kind = await failureKind {
                _ = try await transport.execute(HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
            }
            #expect(kind == .http(.network(.connectionRefused)))
        }
    }
}
