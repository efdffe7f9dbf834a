package import Foundation
import HTTP1Codec
package import RealtimeIO
package import RealtimeTime
package import RealtimeTransport
import WebSocketCodec

/// The native WebSocket client (RFC 6455, with permessage-deflate from RFC 7692) over
/// ``RealtimeIO``'s byte streams.
///
/// ```swift
/// let client = WebSocketClient()
/// let connection = try await client.connect(to: URL(string: "wss://example.com/socket")!,
///                                           options: WebSocketOptions(enableCompression: true))
/// ```
package final class WebSocketClient: WebSocketTransport {
    /// Opens a byte stream to an endpoint within a timeout, on the given loop.
    package typealias Connector = @Sendable (Endpoint, TimeAmount, EventLoop) async throws(NetworkError) -> any ByteStream

    private let connector: Connector
    /// Where each connection lives: the next loop of a group, or always one loop.
    private let eventLoops: any EventLoopProvider

    /// A client that connects through `connector` (tests inject in-memory streams); each
    /// connection is given the next loop of `eventLoops`, which its frame writer prefers.
    package init(eventLoops: any EventLoopProvider, connector: @escaping Connector) {
        self.eventLoops = eventLoops
        self.connector = connector
    }

    package func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection {
        try await self.openConnection(to: url, options: options)
    }

    /// Like ``connect(to:options:)`` but returns the concrete connection type.
    ///
    /// Performs the opening handshake (RFC 6455 §4.1): TCP (and TLS for `wss`), the upgrade
    /// request with a random `Sec-WebSocket-Key`, and validation of the 101 response —
    /// all within `options.connectTimeout`.
    ///
    /// - Throws: ``WebSocketError`` — `.invalidURL`, `.network`, `.handshakeFailed`,
    ///   `.invalidAcceptKey`, `.protocolError` (bad extension negotiation), `.timedOut`,
    ///   `.cancelled`.
    package func openConnection(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> WebSocketClientConnection {
        var generator = SystemRandomNumberGenerator()
        let keyBytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let request = try WebSocketHandshakeRequest(
            url: url, key: WebSocketHandshake.key(fromRandomBytes: keyBytes),
            options: options)
        let endpoint = Endpoint(
            host: request.host, port: request.port, tls: request.usesTLS ? options.tls : nil,
            proxy: options.proxy.server(for: url))
        let connector = self.connector
        let timeout = options.connectTimeout
        let loop = self.eventLoops.next()
        let deadline = loop.now + timeout

        let stream: any ByteStream
        do {
            stream = try await connector(endpoint, timeout, loop)
        } catch {
            if Task.isCancelled { throw WebSocketError(.cancelled, "connect was cancelled") }
            if error.kind == .connectTimedOut { throw WebSocketError(.timedOut, error.message) }
            throw WebSocketError(error)
        }
        // The rest of the timeout bounds the opening handshake: a timer of the connection's
        // loop closes the stream at the deadline, which ends the handshake's read or write. The
        // flag settles whether the timer or the handshake finished first.
        let timedOut = TimeoutFlag()
        let timer = loop.schedule(at: deadline) {
            if timedOut.fire() { stream.close() }
        }
        let outcome: Result<(WebSocketHandshakeResponse, [UInt8]), WebSocketError>
        do throws(WebSocketError) {
            outcome = .success(try await Self.handshake(request, over: stream))
        } catch {
            outcome = .failure(error)
        }
        timer.cancel()
        let inTime = timedOut.disarm()
        do throws(WebSocketError) {
            let (response, leftover) = try outcome.get()
            guard inTime else { throw WebSocketError(.timedOut, "opening handshake timed out") }
            let agreement = try response.validate(against: request)
            return WebSocketClientConnection(
                stream: stream, responseHeaders: response.headers, bufferedBytes: leftover,
                maxMessageSize: options.maxMessageSize,
                compression: agreement.compression, subprotocol: agreement.subprotocol,
                closeTimeout: options.closeTimeout, eventLoop: loop)
        } catch {
            stream.close()
            if timedOut.hasFired { throw WebSocketError(.timedOut, "opening handshake timed out") }
            if Task.isCancelled { throw WebSocketError(.cancelled, "connect was cancelled") }
            throw error
        }
    }

    /// Sends the upgrade request and reads the response head.
    private static func handshake(
        _ request: WebSocketHandshakeRequest,
        over stream: any ByteStream
    ) async throws(WebSocketError) -> (WebSocketHandshakeResponse, [UInt8]) {
        let result: Result<(WebSocketHandshakeResponse, [UInt8]), WebSocketError> = await withTaskCancellationHandler {
            do throws(WebSocketError) {
                do throws(NetworkError) {
                    try await stream.write(request.serialized())
                } catch {
                    throw WebSocketError(error)
                }
                // The head of the 101 (or the refusal) through the HTTP/1.1 parser; the
                // bytes after a 101 head already belong to the WebSocket.
                var parser = HTTPResponseParser()
                parser.expectResponse(toMethod: "GET")
                while true {
                    let bytes: [UInt8]
                    do throws(NetworkError) {
                        bytes = try await stream.read(maxLength: 16 * 1024)
                    } catch {
                        throw WebSocketError(error)
                    }
                    guard !bytes.isEmpty else {
                        throw WebSocketError(.handshakeFailed(status: 0), "server closed the connection during the handshake")
                    }
                    parser.append(bytes)
                    let event: HTTPResponseEvent?
                    do throws(HTTPParseError) {
                        event = try parser.next()
                    } catch {
                        throw WebSocketError(.handshakeFailed(status: 0), "malformed response: \(error.message)")
                    }
                    if case .head(let head)? = event {
                        let response = WebSocketHandshakeResponse(status: head.status, headers: head.headers)
                        return .success((response, head.status == 101 ? parser.takeRemainingBytes() : []))
                    }
                }
            } catch {
                return .failure(error)
            }
        } onCancel: {
            stream.close()
        }
        return try result.get()
    }
}
