#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif
import HTTP1Codec

/// One WebSocket opened by ``URLSessionWebSocketTransport``.
final class URLSessionWebSocketConnection: WebSocketConnection {
    private let task: any URLSessionWebSocketTaskHandle
    let responseHeaders: HTTPHeaders

    init(task: any URLSessionWebSocketTaskHandle, responseHeaders: HTTPHeaders) {
        self.task = task
        self.responseHeaders = responseHeaders
    }

    deinit {
        self.task.cancel()
    }

    var closeStatus: (code: UInt16, reason: String)? {
        guard self.task.closeCode != .invalid else { return nil }
        return (UInt16(clamping: self.task.closeCode.rawValue),
                String(decoding: self.task.closeReason ?? Data(), as: UTF8.self))
    }

    func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        do {
            switch message {
            case .text(let text): try await self.task.send(.string(text))
            case .binary(let bytes): try await self.task.send(.data(Data(bytes)))
            }
        } catch {
            throw Self.mapError(error)
        }
    }

    func receive() async throws(WebSocketError) -> WebSocketMessage? {
        let message: URLSessionWebSocketTask.Message
        do {
            message = try await self.task.receive()
        } catch {
            // A finished close handshake ends the stream of messages.
            if self.task.closeCode != .invalid { return nil }
            throw Self.mapError(error)
        }
        switch message {
        case .string(let text): return .text(text)
        case .data(let data): return .binary([UInt8](data))
        @unknown default: throw WebSocketError(.unsupported, "unknown URLSession message kind")
        }
    }

    func close(code: UInt16, reason: String) async {
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
        self.task.cancel(with: closeCode, reason: Data(reason.utf8))
    }

    static func mapError(_ error: any Error) -> WebSocketError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return WebSocketError(.protocolError, nsError.localizedDescription)
        }
        switch nsError.code {
        case NSURLErrorCancelled: return WebSocketError(.cancelled, nsError.localizedDescription)
        case NSURLErrorTimedOut: return WebSocketError(.timedOut, nsError.localizedDescription)
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL: return WebSocketError(.unsupported, nsError.localizedDescription)
        case NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasUnknownRoot:
            return WebSocketError(.network(.certificateUntrusted), nsError.localizedDescription)
        case NSURLErrorCannotConnectToHost: return WebSocketError(.network(.connectionRefused), nsError.localizedDescription)
        case NSURLErrorCannotFindHost: return WebSocketError(.network(.nameResolutionFailed), nsError.localizedDescription)
        default: return WebSocketError(.network(.connectionReset), nsError.localizedDescription)
        }
    }
}
