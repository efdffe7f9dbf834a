// The SocketIOConcurrency seed's usage (../shared/seeds/000, "Usage"), pasted unchanged as the
// top-level code of `main.swift`, against the server URL given as the first argument.
// Tests/ToolsTests/SeedTopLevelTests runs it against python-socketio and the reference server.
//
// At the top level Swift binds `try await socket.connect()` to SocketIO's synchronous
// `connect(withPayload:)`, which returns while the socket is still connecting; the async
// `emitWithAck` after it waits for the connection (socket.io-client's rule), so the flow works.
//
// The seed's second snippet ("Literal-friendly payloads") runs in an async function: at the
// top level its `emitWithAck("message:confirm", payload)`, with no `timeout:`, would bind to
// upstream's synchronous `emitWithAck`, which returns an `OnAckCallback` and sends nothing
// (the compiler says so: "no 'async' operations occur within 'await' expression").
import SocketIOConcurrency

let serverURL = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "http://127.0.0.1:39091"

let manager = SocketManager(
    socketURL: URL(string: serverURL)!,
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

func literalPayloads() async throws {
    let payload: SocketIOClient.Payload = [
        "message": "hi",
        "attempt": 1,
        "ok": true,
    ]

    await socket.emit("message:send", payload)
    let ack = try await socket.emitWithAck("message:confirm", payload)
    print("confirm:", ack)
}
try await literalPayloads()
