import HTTP1Codec
import RealtimeSync
package import RealtimeTransport

#if canImport(FoundationNetworking)
package import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

/// A ``WebSocketTransport`` over `URLSessionWebSocketTask` (iOS 13 / macOS 10.15 API).
///
/// Thin by design: URLSession performs the handshake, masking, pings and close handshake.
/// ``WebSocketOptions/tls`` is applied in the session's server-trust challenge where the
/// platform issues one (Apple platforms, see ``URLSessionServerTrust``);
/// ``WebSocketOptions/enableCompression`` is not: URLSession does not negotiate
/// permessage-deflate. It compiles everywhere, so the URLSession configuration type-checks on
/// Linux, but connects only on Apple platforms: FoundationNetworking's libcurl has no WebSocket
/// support and fails `resume()` with `NSURLErrorUnsupportedURL`.
///
/// - Important: Thread-safe. The handshake counts as done when the first ping is answered.
package final class URLSessionWebSocketTransport: WebSocketTransport {
    /// Makes the task for an upgrade request; `options` carry what the session applies (`tls`
    /// in its trust challenge, `proxy` as its `connectionProxyDictionary`).
    package typealias TaskFactory = @Sendable (_ request: URLRequest, _ options: WebSocketOptions) -> any URLSessionWebSocketTaskHandle

    private let makeTask: TaskFactory

    /// A transport over tasks `makeTask` makes: ``URLSessionHTTPTransport/makeWebSocketTransport()``'s
    /// sessions (which apply ``WebSocketOptions/tls`` and ``WebSocketOptions/proxy``), or a
    /// test's script. There is no initializer with a session of its own: one without the
    /// transport's delegate would silently skip `.security` pinning and `.selfSigned`.
    package init(makeTask: @escaping TaskFactory) {
        self.makeTask = makeTask
    }

    package func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss" else {
            throw WebSocketError(.invalidURL, "not a ws or wss URL: \(url.scheme ?? "none")")
        }
        let task = self.makeTask(Self.upgradeRequest(url: url, options: options), options)
        // Apple's default is 1 MiB ("Receive calls will error out if this value is reached");
        // set before `resume()`, it bounds every message of the connection.
        task.setMaximumMessageSize(options.maxMessageSize)
        task.resume()
        // The first pong proves the handshake completed (or its error says why it did not):
        // reads and writes enqueued before the handshake wait for it (NSURLSession.h).
        let pong: (any Error)? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
                // Apple's URLSession may call the pong handler twice (the failure, then the
                // cancellation, when the connection drops with the ping in flight): only the
                // first call resumes.
                let pending = LockedValue<CheckedContinuation<(any Error)?, Never>?>(continuation)
                task.sendPing { error in
                    let continuation = pending.withLock { pending in
                        defer { pending = nil }
                        return pending
                    }
                    continuation?.resume(returning: error)
                }
            }
        } onCancel: {
            task.cancel()
        }
        if let error = pong {
            task.cancel()
            if let rejection = task.serverTrustFailure {
                throw URLSessionWebSocketConnection.mapError(rejection)
            }
            if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
                throw WebSocketError(.handshakeFailed(status: response.statusCode), error.localizedDescription)
            }
            throw URLSessionWebSocketConnection.mapError(error)
        }
        if Task.isCancelled {
            task.cancel()
            throw WebSocketError(.cancelled, "the task was cancelled")
        }
        var headers = HTTPHeaders()
        if let response = task.response as? HTTPURLResponse {
            for (name, value) in response.allHeaderFields {
                headers.add(name: "\(name)", value: "\(value)")
            }
        }
        return URLSessionWebSocketConnection(task: task, responseHeaders: headers)
    }

    /// The upgrade request: the options' headers (with `Cookie`) and sub-protocols; the
    /// connect timeout as the request's timeout.
    ///
    /// The sub-protocols go as one comma-separated `Sec-WebSocket-Protocol` field, which is how
    /// `webSocketTask(with: URLRequest)` takes them ("Clients who want to add custom protocols
    /// can do so by directly adding headers with the key Sec-WebSocket-Protocol and a comma
    /// separated list of protocols", NSURLSession.h); the server's choice is that field of
    /// ``WebSocketConnection/responseHeaders``.
    static func upgradeRequest(url: URL, options: WebSocketOptions) -> URLRequest {
        let timeout = options.connectTimeout.seconds
        var request = URLRequest(url: url, timeoutInterval: timeout)
        for (name, value) in options.headers {
            request.addValue(value, forHTTPHeaderField: name)
        }
        if !options.subprotocols.isEmpty {
            request.setValue(options.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        return request
    }
}
