import Foundation
import SocketIOConcurrency
import Testing

@Suite struct ClientEventPayloadTests {
    typealias Event = SocketIOClient.ClientEventPayload

    /// Items as socket.io-client-swift delivers them with each client event, and the typed payload.
    static let deliveries: [(SocketClientEvent, UncheckedItems, Event)] = [
        (.connect, UncheckedItems(["/"]), .connect),
        (.connect, UncheckedItems(["/", ["sid": "abc"]]), .connectWithPayload(payload: ["sid": "abc"])),
        (.disconnect, UncheckedItems(["Ping timeout"]), .disconnect(reason: .pingTimeout)),
        (.disconnect, UncheckedItems([]), .disconnect(reason: .none)),
        (.error, UncheckedItems(["Tried emitting when not connected"]), .error(.notConnected(event: "error"))),
        (.ping, UncheckedItems([]), .ping),
        (.pong, UncheckedItems([]), .pong),
        (.reconnect, UncheckedItems(["Socket Disconnected"]), .reconnect(reason: .socketDisconnected)),
        (.reconnectAttempt, UncheckedItems([3]), .reconnectAttempt(attempt: .remaining(3))),
        (.reconnectAttempt, UncheckedItems([-2]), .reconnectAttempt(attempt: .unlimited(raw: -2))),
        (.statusChange, UncheckedItems([SocketIOStatus.connected, 3]), .statusChange(.connected)),
        (.statusChange, UncheckedItems([1]), .statusChange(.disconnected)),
        (
            .websocketUpgrade, UncheckedItems([["Sec-WebSocket-Accept": "x"]]),
            .websocketUpgrade(headers: ["Sec-WebSocket-Accept": "x"])
        ),
    ]

    @Test(arguments: deliveries)
    func itemsMapToTheirCase(event: SocketClientEvent, items: UncheckedItems, expected: Event) throws {
        #expect(try Event(clientEvent: event, items: items.items) == expected)
    }

    static let malformed: [(SocketClientEvent, UncheckedItems)] = [
        (.connect, UncheckedItems([])),
        (.connect, UncheckedItems([1])),
        (.disconnect, UncheckedItems([42])),
        (.reconnectAttempt, UncheckedItems(["three"])),
        (.reconnectAttempt, UncheckedItems([true])),
        (.statusChange, UncheckedItems(["connected"])),
        (.statusChange, UncheckedItems([99])),
        (.websocketUpgrade, UncheckedItems([["k": 1]])),
    ]

    @Test(arguments: malformed)
    func malformedItemsThrowInvalidSocketData(event: SocketClientEvent, items: UncheckedItems) {
        #expect {
            try Event(clientEvent: event, items: items.items)
        } throws: { error in
            guard case .invalidSocketData(let name, _) = error as? SocketIOClient.Error else { return false }
            return name == event.rawValue
        }
    }
}
