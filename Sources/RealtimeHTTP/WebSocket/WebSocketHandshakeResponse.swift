import HTTP1Codec
package import RealtimeTransport
package import WebSocketCodec

/// The server's answer to the opening handshake, checked as RFC 6455 §4.1 (client
/// requirements 1–6) demands.
package struct WebSocketHandshakeResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders

    package init(status: Int, headers: HTTPHeaders) {
        self.status = status
        self.headers = headers
    }

    /// What the accepted handshake settled.
    package struct Agreement: Sendable {
        package var compression: PerMessageDeflateParameters?
        package var subprotocol: String?
    }

    /// Validates the response against the request that was sent.
    /// - Throws: `.handshakeFailed(status:)` for a non-101 or a response missing the upgrade
    ///   headers, `.invalidAcceptKey`, `.protocolError` for unoffered extensions or
    ///   sub-protocols.
    package func validate(against request: WebSocketHandshakeRequest) throws(WebSocketError) -> Agreement {
        guard self.status == 101 else {
            throw WebSocketError(.handshakeFailed(status: self.status), "server answered \(self.status) instead of 101")
        }
        guard self.headers.first(name: "Upgrade")?.lowercased().trimmingCharacters(in: " \t") == "websocket" else {
            throw WebSocketError(.handshakeFailed(status: 101), "missing Upgrade: websocket")
        }
        let connectionTokens = self.headers.values(name: "Connection")
            .flatMap { $0.split(separator: ",") }
            .map { String($0).lowercased().trimmingCharacters(in: " \t") }
        guard connectionTokens.contains("upgrade") else {
            throw WebSocketError(.handshakeFailed(status: 101), "missing Connection: Upgrade")
        }
        let expected = WebSocketHandshake.acceptValue(forKey: request.key)
        guard self.headers.first(name: "Sec-WebSocket-Accept")?.trimmingCharacters(in: " \t") == expected else {
            throw WebSocketError(.invalidAcceptKey, "Sec-WebSocket-Accept does not match the key")
        }
        var agreement = Agreement()
        let extensions = self.headers.values(name: "Sec-WebSocket-Extensions")
        if !extensions.isEmpty {
            guard request.offersCompression else {
                throw WebSocketError(.protocolError, "server selected an extension that was not offered")
            }
            do {
                agreement.compression = try PerMessageDeflateParameters(serverResponse: extensions)
            } catch {
                throw WebSocketError(.protocolError, error.message)
            }
        }
        if let selected = self.headers.first(name: "Sec-WebSocket-Protocol")?.trimmingCharacters(in: " \t") {
            guard request.subprotocols.contains(selected) else {
                throw WebSocketError(.protocolError, "server selected a sub-protocol that was not offered")
            }
            agreement.subprotocol = selected
        }
        return agreement
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
