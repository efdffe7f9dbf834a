import Dispatch
import Foundation
import RealtimeSync
import TestSupport
import Testing

@testable import SocketIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.sessionDelegate` over URLSession (the Apple platforms' default, chosen explicitly here so
/// the test runs in both builds): the engine's session asks the given delegate about the
/// server's authentication challenge, here a 401 Basic challenge from `http_server.py` on the
/// polling request (FoundationNetworking issues no server-trust challenge on Linux).
@Suite(.serialized) struct SocketIOSessionDelegateTests {
    /// Records each challenge's method, realm and request path, and cancels it.
    final class CancellingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        let challenges = LockedValue<[String]>([])

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let space = challenge.protectionSpace
            let entry = "\(space.authenticationMethod) \(space.realm ?? "-") \(task.originalRequest?.url?.path ?? "-")"
            self.challenges.withLock { $0.append(entry) }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    @Test func thePollingRequestsChallengeGoesToTheSessionDelegate() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let delegate = CancellingDelegate()
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            config: [
                .handleQueue(DispatchQueue(label: "sio-session-delegate")),
                .path("/basic-auth/socket.io/"), .forcePolling(true),
                .reconnects(false), .sessionDelegate(delegate),
            ],
            transport: .urlSession)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let failed = EventWaiter(socket, clientEvent: .error)
        socket.connect()
        // The cancelled challenge fails the handshake: the socket reports an error, no connect.
        #expect(await failed.value() != nil)
        #expect(socket.status != .connected)
        let challenges = delegate.challenges.withLock { $0 }
        #expect(
            challenges.first == "\(NSURLAuthenticationMethodHTTPBasic) swift-realtime /basic-auth/socket.io",
            "\(challenges)")
    }
}
