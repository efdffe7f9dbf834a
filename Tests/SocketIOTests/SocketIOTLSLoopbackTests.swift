import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// HTTPS / WSS against python-socketio: verification on by default, `.security` trusts a CA,
/// `.selfSigned(true)` is the only way to turn verification off.
@Suite(.serialized, .needsDefaultWebSocket) struct SocketIOTLSLoopbackTests {
    static var modes: [TransportMode] { TransportMode.available.filter { $0 != .polling } }

    @Test(arguments: modes)
    func verificationDefaultsPinningAndSelfSigned(_ mode: TransportMode) async throws {
        let certificates = try await TestCertificates.makeOffThePool()
        let server = try await TestServer.start(
            "sio_server.py",
            arguments: [
                "--cert", certificates.file("localhost.pem").path, "--key", certificates.file("localhost.key").path,
            ])
        defer { server.stop() }
        let url = URL(string: "https://127.0.0.1:\(server.port)")!
        let queue = DispatchQueue(label: "sio-tls")

        func attempt(_ extra: SocketIOClientConfiguration) async -> (connected: Bool, error: String?) {
            var config: SocketIOClientConfiguration = [.handleQueue(queue), .reconnects(false)]
            for option in mode.options + extra { config.insert(option) }
            let manager = SocketManager(socketURL: url, config: config)
            defer { manager.disconnect() }
            let socket = manager.defaultSocket
            let connected = EventWaiter(socket, clientEvent: .connect)
            let failed = EventWaiter(socket, clientEvent: .error)
            socket.connect()
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if await connected.value(timeout: 0.01) != nil { return (true, nil) }
                if let error = await failed.value(timeout: 0.01) { return (false, error.first as? String) }
            }
            return (false, nil)
        }

        // The test CA is not in the system store: the default refuses the server.
        let untrusted = await attempt([])
        #expect(!untrusted.connected)
        #expect(untrusted.error?.isEmpty == false)

        // Trusting the CA through `.security` connects with full verification.
        let pinned = await attempt([.security(PEMCertificatePinning(certificates: [certificates.caCertificatePEM]))])
        #expect(pinned.connected)

        // `.selfSigned(true)` turns verification off.
        let selfSigned = await attempt([.selfSigned(true)])
        #expect(selfSigned.connected)
    }
}
