#if canImport(Darwin)
package import Foundation
import HTTP1Codec

/// A ``WebSocketTransport`` over `URLSessionWebSocketTask`, for Apple platforms.
///
/// Thin by design: URLSession performs the handshake, masking, pings and compression. It
/// does not see ``WebSocketOptions/tls`` (the system trust store applies) nor
/// ``WebSocketOptions/enableCompression`` (URLSession decides).
package final class URLSessionWebSocketTransport: WebSocketTransport {
    private let session: URLSession

    package init(configuration: URLSessionConfiguration = .default) {
        self.session = URLSession(configuration: configuration)
    }

    deinit {
        self.session.finishTasksAndInvalidate()
    }

    package func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection {
        let timeout = Double(options.connectTimeout.components.seconds)
            + Double(options.connectTimeout.components.attoseconds) / 1e18
        var request = URLRequest(url: url, timeoutInterval: timeout)
        for (name, value) in options.headers {
            request.addValue(value, forHTTPHeaderField: name)
        }
        if !options.subprotocols.isEmpty {
            request.setValue(options.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        let task = self.session.webSocketTask(with: request)
        task.maximumMessageSize = options.maxMessageSize
        task.resume()
        // The first pong proves the handshake completed (or its error says why it did not).
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        } catch {
            task.cancel()
            if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
                throw WebSocketError(.handshakeFailed(status: response.statusCode), error.localizedDescription)
            }
            throw URLSessionWebSocketConnection.mapError(error)
        }
        var headers = HTTPHeaders()
        if let response = task.response as? HTTPURLResponse {
            for (name, value) in response.allHeaderFields {
                headers.add(name: "\(name)", value: "\(value)")
            }
        }
        return URLSessionWebSocketConnection(task: task, responseHeaders: headers)
    }
}
#endif
