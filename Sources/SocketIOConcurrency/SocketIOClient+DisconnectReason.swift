import Foundation
public import SocketIO

extension SocketIOClient {
    /// Why a socket disconnected, parsed from socket.io-client-swift's reason strings.
    ///
    /// socket.io-client-swift reports a disconnection as a `.disconnect` client event whose only
    /// item is a reason string. The strings it produces itself map to named cases; any other
    /// string (a reason the engine or a newer client produces) is kept unchanged in
    /// ``unknown(_:)``, so nothing is lost: ``rawReason`` gives back the original text.
    ///
    /// ```swift
    /// for try await event in socket.on(clientEvent: .disconnect) {
    ///     if case .disconnect(reason: .pingTimeout) = event { print("server went quiet") }
    /// }
    /// ```
    public enum DisconnectReason: Sendable, Hashable, CustomStringConvertible {
        /// `"Ping timeout"`: the engine saw no ping from the server within `pingInterval + pingTimeout`.
        case pingTimeout
        /// `"Namespace leave"`: this socket left its namespace (`SocketIOClient.disconnect()`).
        case namespaceLeave
        /// `"Got Disconnect"`: the server sent a Socket.IO DISCONNECT packet for the namespace.
        case gotDisconnect
        /// `"Disconnect"`: the manager was disconnected by the application.
        case manualDisconnect
        /// `"reconnect"`: the engine closed to reconnect.
        case reconnect
        /// `"Reconnect Failed"`: the manager gave up reconnecting.
        case reconnectFailed
        /// `"Socket Disconnected"`: the engine's transport closed.
        case socketDisconnected
        /// `"Manager Deinit"`: the manager was released.
        case managerDeinit
        /// `"Adding new engine"`: the manager replaced its engine.
        case addingNewEngine
        /// `"manual reconnect"`: the application asked the manager to reconnect.
        case manualReconnect
        /// `"Error parsing open packet"`: the engine's handshake (`open` packet) was not valid JSON.
        case openPacketParsingFailed
        /// `"Open packet contained no sid"`: the engine's handshake carried no session id.
        case openPacketMissingSID
        /// `"Engine URLSession became invalid"`: upstream's engine lost its URLSession.
        case engineURLSessionInvalid
        /// No reason was given (no item, or an empty string).
        case none
        /// A reason string with no named case, kept exactly as received.
        case unknown(String)

        private static let literals: [(DisconnectReason, String)] = [
            (.pingTimeout, "Ping timeout"),
            (.namespaceLeave, "Namespace leave"),
            (.gotDisconnect, "Got Disconnect"),
            (.manualDisconnect, "Disconnect"),
            (.reconnect, "reconnect"),
            (.reconnectFailed, "Reconnect Failed"),
            (.socketDisconnected, "Socket Disconnected"),
            (.managerDeinit, "Manager Deinit"),
            (.addingNewEngine, "Adding new engine"),
            (.manualReconnect, "manual reconnect"),
            (.openPacketParsingFailed, "Error parsing open packet"),
            (.openPacketMissingSID, "Open packet contained no sid"),
            (.engineURLSessionInvalid, "Engine URLSession became invalid"),
        ]

        /// Parses a reason string, as the socket.io-client-swift-concurrency package does:
        /// surrounding whitespace is ignored and letter case too (`" ping TIMEOUT\n"` is
        /// ``pingTimeout``).
        ///
        /// `nil`, `""` and whitespace only give ``none``; a string that is not one of the known
        /// literals gives ``unknown(_:)`` with the string unchanged (lossless).
        public init(rawReason: String?) {
            guard let rawReason else {
                self = .none
                return
            }
            let normalized = rawReason.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !normalized.isEmpty else {
                self = .none
                return
            }
            let lowered = normalized.lowercased()
            self = Self.literals.first(where: { $0.1.lowercased() == lowered })?.0 ?? .unknown(rawReason)
        }

        /// The reason string this value stands for (`nil` for ``none``).
        public var rawReason: String? {
            switch self {
            case .none: return nil
            case .unknown(let text): return text
            default: return Self.literals.first(where: { $0.0 == self })?.1
            }
        }

        /// The reason string (``rawReason``), or `no reason` for ``none``.
        public var description: String {
            self.rawReason ?? "no reason"
        }
    }
}
