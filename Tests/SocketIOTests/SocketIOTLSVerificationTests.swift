import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// TLS verification on every Socket.IO transport (polling, WebSocket, upgrade) against
/// python-socketio over HTTPS: even with the test CA trusted through `.security`, a
/// certificate for another name, an expired one and one from an unknown issuer are refused;
/// `.selfSigned(true)` is the one explicit way to accept them.
@Suite(.serialized) struct SocketIOTLSVerificationTests {
    static let certificates = Task { try await TestCertificates.makeOffThePool() }

    struct Outcome {
        var connected: Bool
        var error: String?
    }

    static func attempt(port: Int, _ mode: TransportMode, _ extra: SocketIOClientConfiguration) async -> Outcome {
        var config: SocketIOClientConfiguration = [.handleQueue(DispatchQueue(label: "sio-tls-verify")), .reconnects(false)]
        for option in mode.options + extra { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "https://localhost:\(port)")!, config: config)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let connected = EventWaiter(socket, clientEvent: .connect)
        let failed = EventWaiter(socket, clientEvent: .error)
        socket.connect()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if await connected.value(timeout: 0.01) != nil { return Outcome(connected: true) }
            if let error = await failed.value(timeout: 0.01) {
                return Outcome(connected: false, error: error.first.map { "\($0)" })
            }
        }
        return Outcome(connected: false)
    }

    @Test(.needsNativeTLS, arguments: TransportMode.available)
    func badCertificatesAreRefusedUnlessVerificationIsTurnedOff(_ mode: TransportMode) async throws {
        let certificates = try await Self.certificates.value
        let pinned: SocketIOClientConfiguration = [.security(PEMCertificatePinning(certificates: [certificates.caCertificatePEM]))]
        for leaf in ["localhost", "wronghost", "expired", "untrusted"] {
            let server = try await TestServer.start(
                "sio_server.py",
                arguments: [
                    "--cert", certificates.file("\(leaf).pem").path, "--key", certificates.file("\(leaf).key").path,
                ])
            defer { server.stop() }
            let verified = await Self.attempt(port: server.port, mode, pinned)
            if leaf == "localhost" {
                #expect(verified.connected, "\(mode): the valid certificate must connect")
            } else {
                #expect(!verified.connected, "\(mode) \(leaf): connected despite the certificate")
                #expect(verified.error?.isEmpty == false, "\(mode) \(leaf): no error reported")
                print("[tls] Socket.IO \(mode) \(leaf): \(verified.error ?? "-")")
                let weakened = await Self.attempt(port: server.port, mode, [.selfSigned(true)])
                #expect(weakened.connected, "\(mode) \(leaf): .selfSigned(true) must accept it")
            }
        }
    }
}
