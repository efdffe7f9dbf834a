import EventSource
import Foundation
import SocketIOConcurrency

// The ```swift blocks of README.md, compiled here (scripts/docs.sh checks they appear
// verbatim). Nothing here talks to a server; the functions are compiled, not run.

// MARK: - SocketIO (socket.io-client-swift's API)

final class ReadmeChat {
    let manager = SocketManager(socketURL: URL(string: "http://localhost:3000")!, config: [.log(false), .compress])

    func start() {
        let socket = manager.defaultSocket
        socket.on(clientEvent: .connect) { _, _ in
            socket.emitWithAck("message:send", "hello").timingOut(after: 5) { data in
                print("ack:", data)
            }
        }
        socket.on("message:new") { data, ack in
            print("message:", data)
            ack.with("received")
        }
        socket.connect()
    }
}

// MARK: - SocketIOConcurrency (async/await)

func readmeAsyncChat() async throws {
    let manager = SocketManager(socketURL: URL(string: "http://localhost:3000")!, config: [.log(false)])
    let socket = manager.defaultSocket
    try await socket.connect()

    let listener = Task {
        for try await payload in socket.on("message:new") {
            print("message:", payload)
        }
    }
    let ack = try await socket.emitWithAck("message:send", "hello", timeout: 5)
    print("ack:", ack)

    listener.cancel()
    try await socket.disconnect()
}

// MARK: - EventSource

func readmeEventSource() async {
    let eventSource = EventSource()
    let request = URLRequest(url: URL(string: "http://localhost:8080/events")!)
    let dataTask = eventSource.dataTask(for: request)

    for await event in dataTask.events() {
        switch event {
        case .open: print("open")
        case .event(let event): print(event.event ?? "message", event.data ?? "")
        case .error(let error): print("error:", error.localizedDescription)
        case .closed: print("closed")
        }
    }
    print("last id:", dataTask.lastMessageId)
}

// MARK: - EventSource beyond Recouse's API

func readmeEventSourceExtras(request: URLRequest) async {
    let dataTask = EventSource(reconnectionPolicy: .exponentialBackoff()).dataTask(for: request)
    // Comments and `retry:` fields in stream order, without a new EventType case:
    for await element in dataTask.events(including: [.comments, .retry]) {
        if let comment = element.comment {
            print("comment:", comment)
        } else if let retry = element.retryInterval {
            print("retry:", retry)
        } else if case .event(let event)? = element.event {
            print(event.data ?? "")
        }
    }
    // Elsewhere: drop the connection and reconnect now (Last-Event-ID, prepareRequest).
    dataTask.restart()
}
