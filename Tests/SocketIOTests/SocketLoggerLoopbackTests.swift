import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
        let harness = try await LoopbackHarness(
            mode,
            extra: [
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

extension SocketLoggerLoopbackTests {
    /// Every place a credential can go (auth payloads on two namespaces, a query token, an
    /// `Authorization` header, a `Cookie` header, `.cookies`), on every transport, through a
    /// connect, events with acks, a rejected namespace, a reconnection after the server kicked
    /// the transport, and a connection refused: the captured log holds none of them.
    @Test(arguments: TransportMode.available)
    func noCredentialReachesTheLogOnAnyTransportOrErrorPath(_ mode: TransportMode) async throws {
        let logger = CapturingLogger()
        let secrets = [
            "auth-root-secret-1111", "admin-secret", "query-token-secret-2222", "bearer-secret-3333",
            "cookie-header-secret-4444", "cookie-option-secret-5555", "event-secret-6666", "wrong-admin-secret-7777",
        ]
        let cookie = try #require(
            HTTPCookie(properties: [
                .name: "io_session", .value: secrets[5], .domain: "127.0.0.1", .path: "/",
            ]))
        let credentials: SocketIOClientConfiguration = [
            .logger(logger), .log(true), .connectParams(["token": secrets[2]]), .cookies([cookie]),
            .extraHeaders(["Authorization": "Bearer \(secrets[3])", "Cookie": "hdr=\(secrets[4])"]),
        ]
        func configuration() -> SocketIOClientConfiguration {
            var config = credentials
            for option in [.handleQueue(DispatchQueue(label: "sio-log")), .reconnects(false)] + mode.options {
                config.insert(option)
            }
            return config
        }
        let harness = try await LoopbackHarness(mode, extra: credentials)
        defer {
            harness.stop()
            logger.log = false
        }
        let root = harness.manager.defaultSocket
        #expect(await harness.connect(root, payload: ["token": secrets[0]]).connected != nil)
        let admin = harness.manager.socket(forNamespace: "/admin")
        #expect(await harness.connect(admin, payload: ["token": secrets[1]]).connected != nil)
        #expect(await harness.ack(root, "echo", [secrets[6]])?.first as? String == secrets[6])
        #expect(await harness.ack(admin, "auth_seen", [])?.first as? [String: String] == ["token": secrets[1]])
        // The server saw the credentials (so they were really sent).
        let environ = await harness.ack(root, "environ_seen", [])?.first as? [String: Any]
        #expect((environ?["query"] as? String)?.contains(secrets[2]) == true)

        // A namespace refused with another secret.
        let other = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(harness.server.port)")!,
            config: configuration())
        defer { other.disconnect() }
        let refused = await harness.connect(other.socket(forNamespace: "/admin"), payload: ["token": secrets[7]])
        #expect(refused.error != nil)

        // A connection refused outright.
        let port = harness.server.port
        harness.manager.disconnect()
        harness.server.stop()
        let dead = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(port)")!,
            config: configuration())
        defer { dead.disconnect() }
        let failed = EventWaiter(dead.defaultSocket, clientEvent: .error)
        dead.defaultSocket.connect(withPayload: ["token": secrets[0]])
        #expect(await failed.value() != nil)

        let lines = logger.lines
        #expect(lines.count > 10)
        for line in lines {
            for secret in secrets {
                #expect(!line.contains(secret), "\(mode): \(line)")
            }
        }
    }
}
