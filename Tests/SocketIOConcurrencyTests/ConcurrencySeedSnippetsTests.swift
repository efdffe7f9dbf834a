import Foundation
import SocketIOConcurrency
import Testing

// The contract's usage snippets, verbatim, with only `import SocketIOConcurrency`.

/// The seed's "Minimal async flow without callback nesting", unchanged (its URL points at a
/// server the seed assumes). Compiling it is the check that every name, label and default
/// resolves, and that in an async function `try await socket.connect()` binds to the async
/// overload; `RealServerTests.seedUsageFlow` runs the same flow against a real server.
func seedMinimalAsyncFlow() async throws {
    let manager = SocketManager(
        socketURL: URL(string: "http://127.0.0.1:39091")!,
        config: [.path("/socket.io/"), .forceWebsockets(true), .log(false)]
    )
    let socket = manager.defaultSocket

    try await socket.connect()
    defer { Task { try? await socket.disconnect() } }

    let incomingTask = Task {
        for try await payload in socket.on("message:new") {
            print("incoming:", payload)
        }
    }

    let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3.0)
    print("ack:", ack)

    incomingTask.cancel()
}

/// The seed's "Literal-friendly payloads can be sent directly", unchanged.
func seedLiteralPayloads(socket: SocketIOClient) async throws -> SocketIOClient.Payload {
    let payload: SocketIOClient.Payload = [
        "message": "hi",
        "attempt": 1,
        "ok": true,
    ]

    await socket.emit("message:send", payload)
    let ack = try await socket.emitWithAck("message:confirm", payload)
    return ack
}

@Suite struct ConcurrencySeedSnippetsTests {
    @Test func literalPayloadSnippetEmitsThenReturnsTheAck() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        socket.answerAck(0, with: [["confirmed": true]])
        let ack = try await seedLiteralPayloads(socket: socket)
        #expect(ack == ["confirmed": true])
        let recorded = socket.snapshot
        #expect(recorded.emits.map(\.event) == ["message:send"])
        #expect(recorded.emits.first?.items.first as? SocketIOClient.Payload == ["message": "hi", "attempt": 1, "ok": true])
        #expect(recorded.acksRequested.map(\.event) == ["message:confirm"])
    }

    @Test func minimalFlowSnippetFailsTypedWithoutAServer() async throws {
        // The snippet's fixed port has no server here: the first step must fail with a typed
        // error, not hang (5 s default connect timeout at most).
        do {
            try await seedMinimalAsyncFlow()
            Issue.record("connected to a server on 127.0.0.1:39091?")
        } catch let error as SocketIOClient.Error {
            switch error {
            case .clientError, .connectTimedOut: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }
}
