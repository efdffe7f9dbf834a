import Dispatch
import EventSource
import Foundation
import RealtimeSync
// RealtimeDemo: the SocketIOConcurrency seed's usage flow, run for real against a local
// python-socketio server (`scripts/demo.sh` starts `Tests/Servers/demo_server.py` and passes
// its port). Exits 0 only if every step produced what the server is known to answer.
//
//   swift run RealtimeDemo --port <n>        (or REALTIME_DEMO_PORT=<n>)
//
// The flow runs inside an async function: at the top level of main.swift,
// `try await socket.connect()` would bind to SocketIO's synchronous `connect(withPayload:)`.
import RealtimeTime
import SocketIOConcurrency

/// A step of the demo that did not produce what the server answers.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
}

/// The seed's flow: connect, subscribe, ack round trips with a string and a literal payload,
/// disconnect. Prints what it sends and receives.
func runDemo(port: Int) async throws {
    let manager = SocketManager(
        socketURL: URL(string: "http://127.0.0.1:\(port)")!,
        config: [.path("/socket.io/"), .forceWebsockets(true), .log(false)]
    )
    let socket = manager.defaultSocket

    print("connecting to http://127.0.0.1:\(port) (WebSocket)")
    try await socket.connect()
    print("connected, sid:", socket.sid ?? "?")

    let incoming = IncomingMessages()
    let incomingTask = Task {
        for try await payload in socket.on("message:new") {
            print("incoming:", payload)
            incoming.append(payload)
        }
    }

    let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3.0)
    print("ack:", ack)
    guard ack["ok"] == true, let firstID = ack["id"]?.intValue else {
        throw DemoFailure(description: "unexpected ack for message:send: \(ack)")
    }
    try await incoming.waitFor(id: firstID, message: "hello")

    let payload: SocketIOClient.Payload = [
        "message": "hi",
        "attempt": 1,
        "ok": true,
    ]
    await socket.emit("message:send", payload)
    let confirmation = try await socket.emitWithAck("message:confirm", payload)
    print("ack:", confirmation)
    guard confirmation == ["confirmed": true, "echo": payload] else {
        throw DemoFailure(description: "unexpected ack for message:confirm: \(confirmation)")
    }
    try await incoming.waitFor(id: firstID + 1, message: payload)

    incomingTask.cancel()
    _ = await incomingTask.result
    try await socket.disconnect()
    print("disconnected; handlers left on the socket:", socket.handlers.count)
    guard socket.handlers.isEmpty else {
        throw DemoFailure(description: "handlers left behind: \(socket.handlers.map(\.event))")
    }
    manager.disconnect()
}

/// The `message:new` payloads received so far.
final class IncomingMessages: Sendable {
    private let payloads = LockedValue<[SocketIOClient.Payload]>([])

    func append(_ payload: SocketIOClient.Payload) {
        self.payloads.withLock { $0.append(payload) }
    }

    /// Waits up to 3 s for the broadcast `{"id": id, "message": message}`.
    func waitFor(id: Int, message: SocketIOClient.Payload) async throws {
        let expected: SocketIOClient.Payload = ["id": .int(id), "message": message]
        let deadline = MonotonicInstant.now + .seconds(3)
        while MonotonicInstant.now < deadline {
            if self.payloads.withLock({ $0.contains(expected) }) { return }
            try await Task.sleep(.milliseconds(10))
        }
        throw DemoFailure(description: "no message:new \(expected) within 3 s")
    }
}

/// Streams a few Server-Sent Events from the same local server with `EventSource`.
func runEventSourceDemo(port: Int) async throws {
    let url = URL(string: "http://127.0.0.1:\(port)/events?count=3")!
    print("streaming Server-Sent Events from \(url)")
    let eventSource = EventSource(timeoutInterval: 10)
    let dataTask = eventSource.dataTask(for: URLRequest(url: url))
    var received: [String] = []
    for await event in dataTask.events() {
        switch event {
        case .open:
            print("sse: open")
        case .event(let serverEvent):
            print("sse: event \(serverEvent.event ?? "message") id \(serverEvent.id ?? "none"): \(serverEvent.data ?? "")")
            received.append(serverEvent.data ?? "")
        case .error(let error):
            throw DemoFailure(description: "EventSource error: \(error)")
        case .closed:
            print("sse: closed")
        }
    }
    guard received == ["tick 1", "tick 2", "tick 3"], dataTask.lastMessageId == "3" else {
        throw DemoFailure(description: "unexpected Server-Sent Events: \(received), last id \(dataTask.lastMessageId)")
    }
}

func demoPort() -> Int? {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--port"), index + 1 < arguments.count {
        return Int(arguments[index + 1])
    }
    return ProcessInfo.processInfo.environment["REALTIME_DEMO_PORT"].flatMap(Int.init)
}

guard let port = demoPort() else {
    FileHandle.standardError.write(Data("usage: RealtimeDemo --port <n> (scripts/demo.sh starts the server)\n".utf8))
    exit(2)
}

// A demo must end: give up (and fail) if the whole flow takes more than 30 s.
DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
    FileHandle.standardError.write(Data("RealtimeDemo: FAILED (no result within 30 s)\n".utf8))
    exit(1)
}

do {
    try await runDemo(port: port)
    try await runEventSourceDemo(port: port)
    print("RealtimeDemo: OK")
    exit(0)
} catch {
    FileHandle.standardError.write(Data("RealtimeDemo: FAILED: \(error)\n".utf8))
    exit(1)
}
