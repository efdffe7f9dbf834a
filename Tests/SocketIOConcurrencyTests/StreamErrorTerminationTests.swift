import Foundation
import RealtimeTime
import SocketIOConcurrency
import Testing

/// `on(_:)` streams end by throwing the mapped error on a `.error` client event, as the
/// socket.io-client-swift-concurrency package's do (`SocketIOClient+Async.swift`: the `.error`
/// handler finishes the stream with `Error(clientEventPayload:fallbackEvent: event)`).
@Suite struct StreamErrorTerminationTests {
    @Test func notConnectedEndsTheStreamNamingItsEvent() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.map(\.id)
        var iterator = socket.on("typedErrorEvent").makeAsyncIterator()
        socket.handleEvent("typedErrorEvent", data: [1], isInternalMessage: false)
        socket.handleClientEvent(.error, data: ["Tried emitting when not connected"])
        socket.handleEvent("typedErrorEvent", data: [2], isInternalMessage: false)
        #expect(try await iterator.next() == 1)
        await #expect(throws: SocketIOClient.Error.notConnected(event: "typedErrorEvent")) {
            _ = try await iterator.next()
        }
        #expect(try await iterator.next() == nil)
        // The three handlers (event, disconnect, error) are gone.
        #expect(socket.handlers.map(\.id) == baseline)
    }

    @Test func connectErrorEndsTheStreamWithTheServersMessage() async throws {
        let (_, socket) = makeRecordingSocket()
        var iterator = socket.on("message:new").makeAsyncIterator()
        socket.handleClientEvent(.error, data: [["message": "unauthorized", "data": ["reason": "bad token"]]])
        await #expect(throws: SocketIOClient.Error.clientError(event: "message:new", message: "unauthorized", source: .socketIO)) {
            _ = try await iterator.next()
        }
    }

    /// A consumer waiting in `for try await` gets the error instead of waiting forever.
    @Test func aWaitingConsumerReceivesTheError() async throws {
        let (_, socket) = makeRecordingSocket()
        let stream = socket.on("message:new")
        let consumer = Task { () throws(SocketIOClient.Error) -> Int in
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        try await Task.sleep(.milliseconds(20))
        socket.handleClientEvent(.error, data: ["Engine URLSession became invalid"])
        let result = await consumer.result
        guard case .failure(let error) = result,
            case .clientError(let event, let message, let source)? = error as? SocketIOClient.Error
        else {
            Issue.record("expected a clientError, got \(result)")
            return
        }
        #expect(event == "message:new")
        #expect(message == "Engine URLSession became invalid")
        #expect(source == .engine)
    }

    /// `on(clientEvent: .error)` yields the not-connected error with the seed package's event
    /// name (`SocketClientEvent.error.rawValue`) and keeps going.
    @Test func clientErrorStreamNamesTheErrorEvent() async throws {
        let (_, socket) = makeRecordingSocket()
        var iterator = socket.on(clientEvent: .error).makeAsyncIterator()
        socket.handleClientEvent(.error, data: ["Tried emitting when not connected"])
        socket.handleClientEvent(.error, data: ["Tried emitting when not connected"])
        #expect(try await iterator.next() == .error(.notConnected(event: SocketClientEvent.error.rawValue)))
        #expect(try await iterator.next() == .error(.notConnected(event: "error")))
    }
}
