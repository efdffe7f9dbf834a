import Dispatch
import EngineIOProtocol
import Foundation
import Testing

@testable import SocketIO

/// Network events and acks always go through the open `handleEvent` / `handleAck`; the base
/// implementation recognizes the `[Any]` the socket made (its storage) and hands
/// SocketIOConcurrency's subscribers the decoded values instead of converting it back.
@Suite(.tearsDownTestEngines) struct NetworkArgumentsTests {
    @Test func theDecodedValuesGoOnlyWithTheArrayTheyWereMadeFor() {
        let arguments: [JSONValue] = [.double(1.5), .string("x")]
        let items: [Any] = [1.5, "x"]
        let stash = SocketIOClient.NetworkArguments(items: items, arguments: arguments)
        #expect(stash.decoded(for: items) == arguments)
        // An equal array with storage of its own (an override that rebuilt it) is not it.
        let rebuilt: [Any] = [1.5, "x"]
        #expect(stash.decoded(for: rebuilt) == nil)
        // Nor is one an override changed (copy on write gives it new storage).
        var changed = items
        changed[1] = "y"
        #expect(stash.decoded(for: changed) == nil)
        #expect(stash.decoded(for: Array(items.dropLast())) == nil)
    }

    @Test func aNetworkEventReachesAnyHandlersAsItemsAndValueSubscribersAsDecodedValues() {
        let (manager, _, queue) = makeManager()
        let socket = manager.defaultSocket
        socket.connect()
        manager.parseEngineMessage(#"0{"sid":"s"}"#)
        drain(queue)
        #expect(socket.status == .connected)

        let items = Recorder<[Any]>()
        let values = Recorder<[JSONValue]>()
        let fromItems = Recorder<[Any]>()
        socket.on("n") { data, _ in items.append(data) }
        _ = socket.on("n", values: { values.append($0.values) }, items: { data, _ in fromItems.append(data) })
        // The [Any] handler sends the event to handleQueue, through handleEvent.
        manager.parseEngineMessage(#"2["n",1.5,{"a":[1,2]},9007199254740991]"#)
        drain(queue)
        #expect(items.count == 1)
        #expect(items.values.first?.first as? Double == 1.5)
        #expect(values.count == 1)
        let decoded = values.values.first ?? []
        #expect(decoded.count == 3)
        #expect(decoded.first == .double(1.5))
        #expect(decoded.last == .int(9_007_199_254_740_991))
        #expect(fromItems.count == 0)

        // Called directly with an array of the app's own, the subscriber gets the items.
        socket.handleEvent("n", data: [7], isInternalMessage: false)
        #expect(fromItems.values.first?.first as? Int == 7)
        #expect(values.count == 1)
    }
}
