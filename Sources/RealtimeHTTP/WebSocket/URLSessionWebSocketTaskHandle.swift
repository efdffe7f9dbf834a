import RealtimeSync

#if canImport(FoundationNetworking)
package import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

/// What ``URLSessionWebSocketConnection`` uses of a `URLSessionWebSocketTask`, call for call,
/// so a test can script a task without a network (FoundationNetworking on Linux declares the
/// task but its libcurl cannot open one).
package protocol URLSessionWebSocketTaskHandle: AnyObject, Sendable {
    /// The server's handshake response, once it arrived.
    var response: URLResponse? { get }
    var closeCode: URLSessionWebSocketTask.CloseCode { get }
    var closeReason: Data? { get }
    func setMaximumMessageSize(_ size: Int)
    func resume()
    func cancel()
    func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?)
    func send(_ message: URLSessionWebSocketTask.Message) async throws
    func receive() async throws -> URLSessionWebSocketTask.Message
    /// Sends a ping; `pongReceiveHandler` runs once with `nil` (the pong came) or the failure.
    func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// Why the session's trust challenge rejected the server, if it did: on Apple platforms the
    /// task then fails with `NSURLErrorCancelled`, and this is the failure to report.
    var serverTrustFailure: (any Error)? { get }
}

extension URLSessionWebSocketTaskHandle {
    /// None: a scripted task has no trust challenge.
    package var serverTrustFailure: (any Error)? { nil }
}

/// The real `URLSessionWebSocketTask` behind a ``URLSessionWebSocketTaskHandle``.
final class SystemWebSocketTask: URLSessionWebSocketTaskHandle, @unchecked Sendable {
    // `@unchecked Sendable`: forwards to the task, which URLSession makes thread-safe (but
    // FoundationNetworking does not declare Sendable); its own state is behind a lock.
    private let task: URLSessionWebSocketTask
    private let trustFailure = LockedValue<URLSessionServerTrust.Failure?>(nil)

    init(_ task: URLSessionWebSocketTask) {
        self.task = task
    }

    var response: URLResponse? { self.task.response }
    var closeCode: URLSessionWebSocketTask.CloseCode { self.task.closeCode }
    var closeReason: Data? { self.task.closeReason }
    func setMaximumMessageSize(_ size: Int) { self.task.maximumMessageSize = size }
    func resume() { self.task.resume() }
    func cancel() { self.task.cancel() }
    func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        self.task.cancel(with: closeCode, reason: reason)
    }
    func send(_ message: URLSessionWebSocketTask.Message) async throws { try await self.task.send(message) }
    func receive() async throws -> URLSessionWebSocketTask.Message { try await self.task.receive() }
    func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        self.task.sendPing(pongReceiveHandler: pongReceiveHandler)
    }
    var serverTrustFailure: (any Error)? { self.trustFailure.withLock { $0 } }

    /// Called by the session delegate from the task's trust challenge.
    func serverTrustRejected(_ failure: URLSessionServerTrust.Failure) {
        self.trustFailure.withLock { $0 = failure }
    }
}
