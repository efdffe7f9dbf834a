import Foundation
import SocketIOConcurrency
import Testing

/// The error table of the contract, through the public entry points that receive those signals.
@Suite struct ErrorMappingTests {
    typealias Error = SocketIOClient.Error

    @Test(arguments: [0.0, -1.0, .nan, .infinity, -.infinity])
    func invalidTimeoutsAreRefusedEverywhere(timeout: Double) async {
        let (_, socket) = makeRecordingSocket()
        await #expect(throws: Error.self) { try await socket.connect(timeout: timeout) }
        for attempt in 0..<4 {
            do {
                switch attempt {
                case 0: try await socket.connect(timeout: timeout)
                case 1: try await socket.disconnect(timeout: timeout)
                case 2: _ = try await socket.emitWithAck("e", 1, timeout: timeout)
                default: _ = try await socket.emitWithAck("e", with: [], timeout: timeout)
                }
                Issue.record("accepted timeout \(timeout)")
            } catch {
                guard case .invalidTimeout(let reported) = error else {
                    Issue.record("got \(error)")
                    continue
                }
                #expect(reported.isNaN ? timeout.isNaN : reported == timeout)
            }
        }
        #expect(socket.snapshot.connectPayloads.isEmpty)
        #expect(socket.snapshot.acksRequested.isEmpty)
    }

    struct Unserializable: Swift.Error, CustomStringConvertible { var description: String { "bad item" } }

    /// `.error` items as socket.io-client-swift reports them, and what `connect` throws for each.
    static let errorEvents: [(UncheckedItems, Error)] = [
        (UncheckedItems(["Tried emitting when not connected"]), .notConnected(event: "connect")),
        (UncheckedItems(["evt", ["x"], Unserializable()]), .invalidSocketData(event: "evt", message: "bad item")),
        (UncheckedItems(["evt", ["x"], "refused"]), .clientError(event: "evt", message: "refused", source: .socketIO)),
        (
            UncheckedItems([["message": "unauthorized", "data": ["code": 4]]]),
            .clientError(event: "connect", message: "unauthorized", source: .socketIO)
        ),
        (
            UncheckedItems(["Engine URL is malformed"]),
            .clientError(event: "connect", message: "Engine URL is malformed", source: .engine)
        ),
        (
            UncheckedItems(["WebSocket closed"]),
            .clientError(event: "connect", message: "WebSocket closed", source: .transport)
        ),
        (
            UncheckedItems(["connection to 127.0.0.1:9 refused"]),
            .clientError(event: "connect", message: "connection to 127.0.0.1:9 refused", source: .transport)
        ),
        (
            UncheckedItems(["Invalid namespace"]),
            .clientError(event: "connect", message: "Invalid namespace", source: .socketIO)
        ),
    ]

    @Test(arguments: errorEvents)
    func errorEventDuringConnectThrowsItsMapping(items: UncheckedItems, expected: Error) async {
        let (_, socket) = makeRecordingSocket(connect: .failSoon(items))
        let baseline = socket.handlers.count
        await #expect(throws: expected) { try await socket.connect(timeout: 2) }
        #expect(socket.handlers.count == baseline)
    }

    @Test func errorEventsReachTheClientEventStreamTyped() async throws {
        let (_, socket) = makeRecordingSocket()
        var iterator = socket.on(clientEvent: .error).makeAsyncIterator()
        socket.handleClientEvent(.error, data: ["Tried emitting when not connected"])
        socket.handleClientEvent(.error, data: [["message": "forbidden"]])
        #expect(try await iterator.next() == .error(.notConnected(event: "error")))
        #expect(try await iterator.next() == .error(.clientError(event: nil, message: "forbidden", source: .socketIO)))
    }

    /// A CONNECT_ERROR's `data` (socket.io-client's `err.data`) is kept as a `Payload`; the
    /// source still matches `.socketIO`, and errors without data have none.
    @Test(
        arguments: [
            (
                UncheckedItems([["message": "token expired", "data": ["reason": "expired", "codes": [1, 2]] as [String: Any]]]),
                SocketIOClient.Payload.object(["reason": "expired", "codes": [1, 2]])
            ),
            (UncheckedItems([["message": "token expired", "data": NSNull()]]), .null),
            (UncheckedItems([["message": "token expired"]]), nil),
        ] as [(UncheckedItems, SocketIOClient.Payload?)])
    func aConnectErrorsDataIsKeptAndStillMatchesItsSource(items: UncheckedItems, data: SocketIOClient.Payload?) async {
        let (_, socket) = makeRecordingSocket(connect: .failSoon(items))
        do {
            try await socket.connect(timeout: 2)
            Issue.record("connected")
        } catch .clientError(let event, let message, .socketIO) {
            #expect(event == "connect")
            #expect(message == "token expired")
        } catch {
            Issue.record("got \(error)")
        }
        do {
            try await socket.connect(timeout: 2)
        } catch {
            #expect(error.data == data)
            #expect(error == .clientError(event: "connect", message: "token expired", source: .socketIO))
        }
    }

    @Test func sourcesAreTheirLayer() {
        #expect(Error.notConnected(event: "e").data == nil)
        #expect(Error.Source(rawValue: "engine") == .engine)
        #expect(Error.Source(rawValue: "elsewhere") == nil)
        #expect(Error.Source.socketIO(data: ["a": 1]) == .socketIO)
        #expect(Error.Source.socketIO(data: ["a": 1]) != .engine)
        #expect(Error.Source.socketIO(data: ["a": 1]).data == ["a": 1])
        #expect(Set([Error.Source.socketIO(data: 1), .socketIO, .transport]).count == 2)
    }

    @Test func descriptionsNameTheProblem() {
        #expect(Error.ackTimedOut(event: "message:send", timeout: 3).description.contains("message:send"))
        #expect(Error.disconnected(event: "e", reason: .pingTimeout).description.contains("Ping timeout"))
        #expect(Error.invalidTimeout(-1).localizedDescription.contains("-1"))
    }
}
