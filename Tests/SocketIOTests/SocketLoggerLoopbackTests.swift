import Dispatch
import Foundation
import SocketIO
import Testing
import TestSupport

/// Collects every log line.
final class CapturingLogger: SocketLogger, @unchecked Sendable {
    // `@unchecked Sendable`: mutable state is behind `lock`.
    private let lock = NSLock()
    private var _log = true
    private var _lines: [String] = []

    var log: Bool {
        get { lock.withLock { _log } }
        set { lock.withLock { _log = newValue } }
    }

    var lines: [String] { lock.withLock { _lines } }

    func log(_ message: @autoclosure () -> String, type: String) {
        guard log else { return }
        let line = "\(type): \(message())"
        lock.withLock { _lines.append(line) }
    }

    func error(_ message: @autoclosure () -> String, type: String) {
        guard log else { return }
        let line = "ERROR \(type): \(message())"
        lock.withLock { _lines.append(line) }
    }
}

@Suite(.serialized) struct SocketLoggerLoopbackTests {
    @Test func loggingNeverShowsAuthPayloadsCookiesOrEventData() async throws {
        let logger = CapturingLogger()
        let secret = "super-secret-token-1234"
        let cookieSecret = "cookie-secret-5678"
        let dataSecret = "payload-secret-9012"
        let mode = TransportMode.available.contains(.upgrade) ? TransportMode.upgrade : TransportMode.available[0]
        let harness = try await LoopbackHarness(mode, extra: [
            .logger(logger), .log(true), .extraHeaders(["Cookie": "session=\(cookieSecret)"]),
        ])
        defer {
            harness.stop()
            logger.log = false
        }
        let admin = harness.manager.socket(forNamespace: "/admin")
        #expect(await harness.connect(admin, payload: ["token": "admin-secret", "extra": secret]).connected != nil)
        let echo = EventWaiter(admin, "echo")
        admin.emit("echo", dataSecret)
        #expect(await echo.value()?.first as? String == dataSecret)

        let lines = logger.lines
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(!line.contains(secret))
            #expect(!line.contains("admin-secret"))
            #expect(!line.contains(cookieSecret))
            #expect(!line.contains(dataSecret))
        }
    }
}
