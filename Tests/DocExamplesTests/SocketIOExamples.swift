import Dispatch
import Foundation
import SocketIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The ```swift blocks of Sources/SocketIO/SocketIO.docc, compiled here: scripts/docs.sh fails
// when a block of an article does not appear verbatim (indentation aside) in this target.
// Nothing here talks to a server; the functions are compiled, not run.

// MARK: - GettingStarted.md

final class ChatConnection {
    let manager = SocketManager(socketURL: URL(string: "http://localhost:8080")!, config: [.log(false), .compress])

    func start() {
        let socket = manager.defaultSocket

        socket.on(clientEvent: .connect) { data, ack in
            print("socket connected")
        }

        socket.on("currentAmount") { data, ack in
            guard let cur = data[0] as? Double else { return }

            socket.emitWithAck("canUpdate", cur).timingOut(after: 0) { data in
                if let status = data.first as? String, status == SocketAckStatus.noAck {
                    return  // no ack within the timeout
                }
                socket.emit("update", ["amount": cur + 2.50])
            }

            ack.with("Got your currentAmount", "dude")
        }

        socket.connect()
    }
}

func socketIONamespaces(manager: SocketManager) {
    let admin = manager.socket(forNamespace: "/admin")
    admin.connect(withPayload: ["token": "secret"])
}

func socketIOCustomData(socket: SocketIOClient) {
    struct Position: SocketData {
        let x: Double
        let y: Double

        func socketRepresentation() -> SocketData {
            ["x": x, "y": y]
        }
    }

    socket.emit("move", Position(x: 1, y: 2))
}

// MARK: - ThreadingAndDelivery.md

func socketIOHandleQueue() -> SocketManager {
    let queue = DispatchQueue(label: "com.example.chat.socket")  // serial
    let manager = SocketManager(
        socketURL: URL(string: "https://chat.example.com")!,
        config: [.handleQueue(queue)])
    manager.defaultSocket.on("message") { data, ack in
        dispatchPrecondition(condition: .onQueue(queue))
        print("message:", data)
    }
    return manager
}

func socketIOCompletionOrder(socket: SocketIOClient) {
    socket.emit("first", "a")
    socket.emit(
        "second", "b",
        completion: {
            print("both writes are done")
        })
}

// MARK: - Reconnection.md

func socketIOReconnectionOptions() -> SocketManager {
    let manager = SocketManager(
        socketURL: URL(string: "https://chat.example.com")!,
        config: [
            .reconnects(true),
            .reconnectAttempts(10),  // -1: never give up (the default)
            .reconnectWait(2),  // seconds before the first retry
            .reconnectWaitMax(30),  // the longest wait between two retries
            .randomizationFactor(0.5),  // jitter
        ])
    let socket = manager.defaultSocket

    socket.on(clientEvent: .reconnectAttempt) { data, ack in
        print("attempts left:", data.first ?? "?")
    }
    socket.on(clientEvent: .disconnect) { data, ack in
        print("gone for good:", data.first ?? "?")
    }
    return manager
}

func socketIOManualReconnect(manager: SocketManager) {
    manager.reconnect()
}

// MARK: - TLSAndProxies.md

func socketIOPinnedCA(url: URL) throws -> SocketManager {
    let pem = try String(contentsOfFile: "/etc/chat/ca.pem", encoding: .utf8)
    let manager = SocketManager(
        socketURL: url,
        config: [
            .secure(true),
            .security(PEMCertificatePinning(certificates: [pem])),
        ])
    return manager
}

func socketIOSelfSignedForDevelopment(url: URL) -> SocketManager {
    let manager = SocketManager(socketURL: url, config: [.selfSigned(true)])  // development only
    return manager
}

func socketIOHeadersAndCookies(url: URL) -> SocketManager {
    let cookie = HTTPCookie(properties: [
        .name: "session", .value: "abc", .domain: "chat.example.com", .path: "/",
    ])!
    let manager = SocketManager(
        socketURL: url,
        config: [
            .extraHeaders(["Authorization": "Bearer token"]),
            .cookies([cookie]),
            .connectParams(["room": "lobby"]),
        ])
    return manager
}

func socketIOProxy(url: URL) {
    let manager = SocketManager(socketURL: url)
    manager.proxy = .http(host: "proxy.corp", port: 3128, username: "me", password: "secret")
    // or .socks5(host: "10.0.0.1", port: 1080), .url(proxyURL), .environment()
    manager.defaultSocket.connect()
}

func socketIOTransportChoice(url: URL) -> [SocketManager] {
    let native = SocketManager(socketURL: url, config: [], transport: .native)
    let urlSession = SocketManager(socketURL: url, config: [.forcePolling(true)], transport: .urlSession)
    return [native, urlSession]
}

// MARK: - LimitsAndErrors.md

func socketIOErrors(socket: SocketIOClient) {
    socket.on(clientEvent: .error) { data, ack in
        // ["Tried emitting when not connected"], [event, items, error],
        // the server's CONNECT_ERROR object, or the engine's message.
        print("socket error:", data)
    }
}

// MARK: - MigratingFromSocketIOClientSwift.md

func socketIOUpstreamCode(socket: SocketIOClient) {
    socket.on("chat message") { data, ack in
        guard let text = data.first as? String else { return }
        print(text)
        ack.with("received")
    }
    socket.emitWithAck("join", "lobby").timingOut(after: 5) { data in
        print("joined:", data)
    }
}

func socketIORecovered(socket: SocketIOClient) {
    socket.on(clientEvent: .connect) { _, _ in
        if socket.recovered {
            print("back, nothing missed")
        } else {
            print("new session: fetch the state again")
        }
    }
}

final class CallbackTokenStore: Sendable {
    func freshToken(_ completion: @escaping (String) -> Void) { completion("token") }
}

func socketIOAuthProvider(socket: SocketIOClient, tokenStore: CallbackTokenStore) {
    socket.connect(withAuthProvider: { completion in
        tokenStore.freshToken { token in
            completion(["token": token])
        }
    })
}

func socketIOVolatile(socket: SocketIOClient) {
    socket.volatile.emit("cursor", ["x": 10, "y": 20])
}

func socketIORetries(url: URL) -> SocketManager {
    let manager = SocketManager(socketURL: url, config: [.retries(3), .ackTimeout(2)])
    manager.defaultSocket.emitWithAck("order", 42).timingOut(after: 0) { items in
        // the server's ack, or ["NO ACK"] after 4 tries without one
    }
    return manager
}

func socketIOMessagePack() -> SocketManager {
    let url = URL(string: "https://chat.example.com")!
    let manager = SocketManager(socketURL: url, config: [.parser(.msgpack)])
    return manager
}
