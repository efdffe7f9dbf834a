/// The negotiated parameters of permessage-deflate (RFC 7692 §7.1), seen from the client.
///
/// ```swift
/// request.headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflateParameters.clientOffer)
/// let negotiated = try PerMessageDeflateParameters(serverResponse: response.values("Sec-WebSocket-Extensions"))
/// ```
package struct PerMessageDeflateParameters: Sendable, Hashable {
    /// The client must reset its compression context after each message (§7.1.1.2).
    package var clientNoContextTakeover: Bool = false
    /// The server resets its compression context after each message (§7.1.1.1).
    package var serverNoContextTakeover: Bool = false
    /// LZ77 window of the client's compressor, 8...15 (§7.1.2.2).
    package var clientMaxWindowBits: Int = 15
    /// LZ77 window of the server's compressor, 8...15 (§7.1.2.1).
    package var serverMaxWindowBits: Int = 15

    package init(
        clientNoContextTakeover: Bool = false, serverNoContextTakeover: Bool = false,
        clientMaxWindowBits: Int = 15, serverMaxWindowBits: Int = 15
    ) {
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverMaxWindowBits = serverMaxWindowBits
    }

    /// The extension token.
    package static let extensionName = "permessage-deflate"

    /// What the client offers in `Sec-WebSocket-Extensions` (RFC 7692 §5, §7.1): first
    /// permessage-deflate with context takeover, letting the server pick the client's window
    /// size (§7.1.2.2); then, as a fallback for servers that insist on it, the same with
    /// `client_no_context_takeover` (§7.1.1.2). A server accepts the first offer it supports.
    package static let clientOffer =
        "permessage-deflate; client_max_window_bits, permessage-deflate; client_no_context_takeover; client_max_window_bits"

    /// Reads the server's `Sec-WebSocket-Extensions` response values.
    ///
    /// - Returns: the accepted parameters, or `nil` when the server declined compression.
    /// - Throws: ``WebSocketProtocolError`` (1010) when the server answered with an extension
    ///   the client did not offer, a parameter twice, an unknown parameter or a bad value:
    ///   the client must then fail the connection (RFC 6455 §9.1, RFC 7692 §5.1).
    package init?(serverResponse headerValues: [String]) throws(WebSocketProtocolError) {
        var found: PerMessageDeflateParameters?
        for value in headerValues {
            for element in Self.splitList(value, separator: ",") where !element.isEmpty {
                let parts = Self.splitList(element, separator: ";")
                guard let name = parts.first, name.lowercased() == Self.extensionName else {
                    throw Self.failure("server accepted an extension that was not offered")
                }
                guard found == nil else { throw Self.failure("permessage-deflate accepted twice") }
                found = try Self.parse(parameters: parts.dropFirst())
            }
        }
        guard let found else { return nil }
        self = found
    }

    private static func parse(parameters: ArraySlice<String>) throws(WebSocketProtocolError) -> PerMessageDeflateParameters {
        var result = PerMessageDeflateParameters()
        var seen: Set<String> = []
        for parameter in parameters where !parameter.isEmpty {
            // Empty pieces kept: `=` alone, `=x` or `x=` must fail as a bad parameter, not
            // split into fewer pieces than it has.
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingSpaces() }
            guard let first = pair.first, !first.isEmpty else { throw self.failure("parameter without a name") }
            let name = first.lowercased()
            var value = pair.count > 1 ? pair[1] : nil
            if let quoted = value, quoted.hasPrefix("\""), quoted.hasSuffix("\""), quoted.count >= 2 {
                value = String(quoted.dropFirst().dropLast())
            }
            guard seen.insert(name).inserted else { throw self.failure("parameter \(name) repeated") }
            switch name {
            case "server_no_context_takeover":
                guard value == nil else { throw self.failure("server_no_context_takeover has a value") }
                result.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { throw self.failure("client_no_context_takeover has a value") }
                result.clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let bits = self.windowBits(value) else { throw self.failure("bad server_max_window_bits") }
                result.serverMaxWindowBits = bits
            case "client_max_window_bits":
                guard let bits = self.windowBits(value) else { throw self.failure("bad client_max_window_bits") }
                result.clientMaxWindowBits = bits
            default:
                throw self.failure("unknown permessage-deflate parameter \(name)")
            }
        }
        return result
    }

    private static func windowBits(_ value: String?) -> Int? {
        guard let value, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !value.hasPrefix("0"),
            let bits = Int(value), (8...15).contains(bits)
        else { return nil }
        return bits
    }

    private static func failure(_ message: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: WebSocketCloseCode.mandatoryExtension, message)
    }

    private static func splitList(_ value: some StringProtocol, separator: Character) -> [String] {
        value.split(separator: separator, omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
