import Foundation
import SocketIOConcurrency

// The ```swift blocks of Sources/SocketIOConcurrency/SocketIOConcurrency.docc, compiled here:
// scripts/docs.sh fails when a block of an article does not appear verbatim (indentation
// aside) in this target. Nothing here talks to a server; the functions are compiled, not run.

// MARK: - GettingStarted.md

func concurrencyGettingStarted() async throws {
    let manager = SocketManager(
        socketURL: URL(string: "http://127.0.0.1:39091")!,
        config: [.path("/socket.io/"), .forceWebsockets(true), .log(false)]
    )
    let socket = manager.defaultSocket

    try await socket.connect()

    let incomingTask = Task {
        for try await payload in socket.on("message:new") {
            print("incoming:", payload)
        }
    }

    let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3.0)
    print("ack:", ack)

    incomingTask.cancel()
    try await socket.disconnect()
}

func concurrencyPayloads(socket: SocketIOClient) async throws {
    let payload: SocketIOClient.Payload = [
        "message": "hi",
        "attempt": 1,
        "ok": true,
    ]

    await socket.emit("message:send", payload)
    let ack = try await socket.emitWithAck("message:confirm", payload)
    if let id = ack["id"]?.intValue {
        print("stored as", id)
    }
}

func concurrencyCodablePayload(socket: SocketIOClient) async throws {
    struct Message: Codable, Sendable {
        var text: String
        var attempt: Int
    }

    for try await message in socket.on("message:new", as: Message.self) {
        print(message.text)
    }
}

func concurrencyEveryEvent(socket: SocketIOClient) async throws {
    socket.onAnyOutgoing { event in
        print("sent", event.event)
    }

    for try await event in socket.anyEvents() {
        print("received", event.name, event.payload)
    }
}

// MARK: - ThreadingAndDelivery.md

@MainActor
final class ChatModel {
    var messages: [String] = []

    func listen(on socket: SocketIOClient) async {
        do {
            for try await payload in socket.on("message:new") {
                // This loop runs on the main actor, whichever thread read the event.
                messages.append(payload.stringValue ?? payload.description)
            }
        } catch {
            print("stream ended:", error)
        }
    }
}

func concurrencyCancellation(socket: SocketIOClient) async {
    let send = Task {
        try await socket.emitWithAck("order:place", ["sku": "A-1"], timeout: 10)
    }
    send.cancel()
    switch await send.result {
    case .success(let ack):
        print("placed:", ack)
    case .failure(let error as SocketIOClient.Error) where error == .cancelled:
        // Cancelled before the call: nothing was sent. Cancelled after it: the
        // event may have reached the server; only the wait for its ack was dropped.
        print("not waiting for the ack any more")
    case .failure(let error):
        print("failed:", error)
    }
}

func concurrencyBuffering(socket: SocketIOClient) async throws {
    // Only the latest price matters: keep one, drop the stale ones, and count them.
    let prices = socket.on("price", bufferingPolicy: .bufferingNewest(1))
    for try await price in prices {
        print(price, "(skipped \(prices.droppedCount) so far)")
    }
}

/// What the loop example of ThreadingAndDelivery.md feeds.
final class OrderBook: Sendable {
    func apply(_ price: SocketIOClient.Payload) {}
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
func concurrencyOnTheManagersLoop(manager: SocketManager, socket: SocketIOClient, book: OrderBook) async throws {
    try await withTaskExecutorPreference(manager.taskExecutor) {
        for try await price in socket.on("price") {
            book.apply(price)  // short, non-blocking work: it runs on the loop
        }
    }
}

// MARK: - Reconnection.md

func concurrencyReconnectAttempts(socket: SocketIOClient) async throws {
    for try await event in socket.on(clientEvent: .reconnectAttempt) {
        if case .reconnectAttempt(attempt: .remaining(let left)) = event {
            print("\(left) attempts left")
        }
    }
}

func concurrencyResubscribe(socket: SocketIOClient) async {
    while !Task.isCancelled {
        do throws(SocketIOClient.Error) {
            for try await payload in socket.on("message:new") {
                print(payload)
            }
        } catch .disconnected(_, let reason) {
            print("disconnected:", reason)
            try? await socket.connect(timeout: 30)
        } catch {
            print("stream ended:", error)
            try? await Task.sleep(nanoseconds: 1_000_000_000)
        }
    }
}

func concurrencyStatus(socket: SocketIOClient) async throws {
    for try await status in socket.onStatusChange() where status == .connected {
        print("online")
    }
}

// MARK: - LimitsAndErrors.md

func concurrencyTypedErrors(socket: SocketIOClient) async {
    do throws(SocketIOClient.Error) {
        let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3)
        print(ack)
    } catch .ackTimedOut(let event, let timeout) {
        print("\(event): no ack within \(timeout) s")
    } catch .notConnected {
        print("connect first")
    } catch .disconnected(_, let reason) {
        print("lost the connection:", reason)
    } catch {
        print(error.localizedDescription)
    }
}

func concurrencyConnectErrors(socket: SocketIOClient) async {
    do throws(SocketIOClient.Error) {
        try await socket.connect(withPayload: ["token": "expired"], timeout: 10)
    } catch .clientError(_, let message, .socketIO) {
        print("the server refused the namespace:", message)
    } catch .connectTimedOut {
        print("no answer within 10 s")
    } catch {
        print(error)
    }
}

// MARK: - MigratingFromSocketIOClientSwiftConcurrency.md

func concurrencySeedFlow() async throws {
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

// MARK: - MigratingFromSocketIOClientSwift.md (SocketIO's guide points here for async code)

func concurrencyFromCallbacks(socket: SocketIOClient) async throws {
    let ack = try await socket.emitWithAck("join", "lobby", timeout: 5)
    print("joined:", ack)
}

// MARK: - TLSAndProxies.md

func concurrencyTLS(url: URL, pem: String) async {
    let manager = SocketManager(
        socketURL: url,
        config: [
            .security(PEMCertificatePinning(certificates: [pem])),
            .reconnects(false),
        ])
    manager.proxy = .environment()
    do throws(SocketIOClient.Error) {
        try await manager.defaultSocket.connect(timeout: 10)
    } catch .clientError(_, let message, .transport) {
        print("TLS, proxy or network failure:", message)
    } catch {
        print(error)
    }
}

// MARK: - CodablePayloads.md

func concurrencyCodable(socket: SocketIOClient) async throws {
    struct ChatMessage: Codable, Sendable {
        var room: String
        var text: String
        var attachment: Data?
    }

    try await socket.emit("chat", encoding: ChatMessage(room: "lobby", text: "hi", attachment: nil))

    for try await message in socket.on("chat", as: ChatMessage.self) {
        print(message.room, message.text)
    }
}

func concurrencyCodableAck(socket: SocketIOClient) async throws {
    struct Joined: Decodable {
        var members: Int
    }

    let joined = try await socket.emitWithAck("join", encoding: ["room": "lobby"], as: Joined.self)
    print(joined.members)
}

func concurrencyCodableError(socket: SocketIOClient) async {
    struct Joined: Decodable {
        var members: Int
    }
    do {
        _ = try await socket.emitWithAck("join", encoding: ["room": "lobby"], as: Joined.self)
    } catch .invalidSocketData(let event, let message) {
        print(event ?? "-", message)  // join cannot decode Joined: no value for members
    } catch {
    }
}

actor ThrowingTokenStore {
    func fresh() async throws -> String { "token" }
}

func concurrencyAuthProvider(socket: SocketIOClient, tokens: ThrowingTokenStore) async throws {
    try await socket.connect(authProvider: {
        ["token": .string(try await tokens.fresh())]
    })
}

func concurrencyRecovered(socket: SocketIOClient) async throws {
    try await socket.connect()
    for try await status in socket.onStatusChange() where status == .connected {
        print(socket.recovered ? "resumed" : "new session")
    }
}
