import HTTP1Codec
import RealtimeSync
import WebSocketCodec

#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif

/// One WebSocket opened by ``URLSessionWebSocketTransport``.
final class URLSessionWebSocketConnection: WebSocketConnection {
    private let task: any URLSessionWebSocketTaskHandle
    let responseHeaders: HTTPHeaders
    /// ``close(code:reason:)`` ran: the task was cancelled with a close frame, so a read that
    /// fails after it is the end of the messages, not a failure.
    private let closing = LockedValue(false)

    init(task: any URLSessionWebSocketTaskHandle, responseHeaders: HTTPHeaders) {
        self.task = task
        self.responseHeaders = responseHeaders
    }

    deinit {
        self.task.cancel()
    }

    var closeStatus: (code: UInt16, reason: String)? {
        guard self.task.closeCode != .invalid else { return nil }
        return (
            UInt16(clamping: self.task.closeCode.rawValue),
            String(decoding: self.task.closeReason ?? Data(), as: UTF8.self)
        )
    }

    func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        do {
            switch message {
            case .text(let text): try await self.task.send(.string(text))
            case .binary(let bytes): try await self.task.send(.data(Data(bytes)))
            }
        } catch {
            throw Self.mapError(self.task.serverTrustFailure ?? error)
        }
    }

    func receive() async throws(WebSocketError) -> WebSocketMessage? {
        let message: URLSessionWebSocketTask.Message
        do {
            message = try await self.task.receive()
        } catch {
            // A finished close handshake ends the stream of messages, as does our own close:
            // `cancel(with:reason:)` sends the close frame and ends the task, failing the reads.
            if self.task.closeCode != .invalid || self.closing.withLock({ $0 }) { return nil }
            throw Self.mapError(self.task.serverTrustFailure ?? error)
        }
        switch message {
        case .string(let text): return .text(text)
        case .data(let data): return .binary([UInt8](data))
        @unknown default: throw WebSocketError(.unsupported, "unknown URLSession message kind")
        }
    }

    /// Sends the close frame and ends the task at once: `cancel(with:reason:)` does not wait
    /// for the server's close frame (``closeStatus`` stays what the task reports).
    ///
    /// A code no close frame may carry (1005, 1006, 1015, ...) is sent as 1000. On Apple
    /// platforms `CloseCode(rawValue:)` keeps any other code, the 3000–4999 application range
    /// included (an imported `NS_ENUM`); FoundationNetworking's Swift enum knows only the
    /// named codes and sends 1000 for the others. The reason is cut at a character boundary to
    /// the 123 bytes a close frame has room for (RFC 6455 §5.5), as the native client does.
    func close(code: UInt16, reason: String) async {
        self.closing.withLock { $0 = true }
        let sent = WebSocketCloseCode.isValidOnWire(code) ? code : WebSocketCloseCode.normalClosure
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(sent)) ?? .normalClosure
        let reasonBytes = WebSocketFrameEncoder.closePayload(code: sent, reason: reason).dropFirst(2)
        self.task.cancel(with: closeCode, reason: reasonBytes.isEmpty ? nil : Data(reasonBytes))
    }

    static func mapError(_ error: any Error) -> WebSocketError {
        if let rejection = error as? URLSessionServerTrust.Failure {
            return WebSocketError(.network(rejection.kind), rejection.message)
        }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain {
            // Apple's task fails its reads and writes with POSIX errors once the connection is
            // up: EMSGSIZE when a message outgrows `maximumMessageSize`, else the socket's error.
            switch Int32(truncatingIfNeeded: nsError.code) {
            case EMSGSIZE: return WebSocketError(.messageTooLarge, nsError.localizedDescription)
            case ETIMEDOUT: return WebSocketError(.timedOut, nsError.localizedDescription)
            case ECANCELED: return WebSocketError(.cancelled, nsError.localizedDescription)
            default: return WebSocketError(.network(.connectionReset), nsError.localizedDescription)
            }
        }
        guard nsError.domain == NSURLErrorDomain else {
            return WebSocketError(.protocolError, nsError.localizedDescription)
        }
        switch nsError.code {
        case NSURLErrorCancelled: return WebSocketError(.cancelled, nsError.localizedDescription)
        case NSURLErrorTimedOut: return WebSocketError(.timedOut, nsError.localizedDescription)
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL: return WebSocketError(.unsupported, nsError.localizedDescription)
        case NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasUnknownRoot,
            NSURLErrorSecureConnectionFailed:
            return WebSocketError(.network(.certificateUntrusted), nsError.localizedDescription)
        case NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateNotYetValid:
            return WebSocketError(.network(.certificateExpired), nsError.localizedDescription)
        case NSURLErrorCannotConnectToHost: return WebSocketError(.network(.connectionRefused), nsError.localizedDescription)
        case NSURLErrorCannotFindHost: return WebSocketError(.network(.nameResolutionFailed), nsError.localizedDescription)
        default: return WebSocketError(.network(.connectionReset), nsError.localizedDescription)
        }
    }
}
