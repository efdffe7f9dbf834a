import Foundation
import RealtimeHTTP

/// One engine.io frame waiting to be written: a text packet (`"4..."`) or a binary message.
enum EngineFrame: Sendable {
    case text(String)
    case binary(Data)

    /// The frame inside a polling payload (Engine.IO v4: binary as `b` + base64).
    var pollingText: String {
        switch self {
        case let .text(text): return text
        case let .binary(data): return "b" + data.base64EncodedString()
        }
    }

    var byteCount: Int {
        switch self {
        case let .text(text): return text.utf8.count
        case let .binary(data): return (data.count + 2) / 3 * 4 + 1
        }
    }
}

/// Everything one engine connection attempt owns: the write queue, the tasks driving the
/// transports, the WebSocket, heartbeat settings from the handshake and sticky cookies.
///
/// Lives inside ``SocketEngine``'s lock. `generation` changes on every connect and close,
/// so a task of an older attempt recognises itself as stale and stops without side effects.
struct EngineSession {
    struct PendingWrite {
        var frames: [EngineFrame]
        var completion: UncheckedSendable<() -> ()>?
    }

    /// What ``close()`` hands back to be torn down outside the lock.
    struct Teardown {
        var tasks: [Task<Void, Never>] = []
        var webSocket: (any WebSocketConnection)?
    }

    private(set) var generation = 0
    /// `true` from `reset()` until `close()`.
    private(set) var live = false

    var outgoing: [PendingWrite] = []
    var writerActive = false
    var tasks: [Task<Void, Never>] = []
    var webSocket: (any WebSocketConnection)?

    // Handshake (Engine.IO v4 `open` packet).
    var pingInterval: Duration = .seconds(25)
    var pingTimeout: Duration = .seconds(20)
    var maxPayload = 1_000_000
    var upgrades: [String] = []
    var lastHeartbeat: ContinuousClock.Instant?
    var pollCounter = 0

    /// Cookies the server set during this engine's life (`name` → `value`), sent back on every
    /// request and on the WebSocket upgrade so sticky-session load balancers keep us on one node.
    var stickyCookies: [(name: String, value: String)] = []

    /// Starts a new attempt; returns the previous attempt's resources to tear down.
    mutating func reset() -> Teardown {
        let teardown = Teardown(tasks: self.tasks, webSocket: self.webSocket)
        self.generation += 1
        self.live = true
        self.outgoing = []
        self.writerActive = false
        self.tasks = []
        self.webSocket = nil
        self.lastHeartbeat = nil
        self.upgrades = []
        return teardown
    }

    /// Ends the attempt; queued writes are dropped.
    mutating func close() -> Teardown {
        let teardown = Teardown(tasks: self.tasks, webSocket: self.webSocket)
        self.generation += 1
        self.live = false
        self.outgoing = []
        self.writerActive = false
        self.tasks = []
        self.webSocket = nil
        return teardown
    }

    func isCurrent(_ generation: Int) -> Bool {
        self.live && self.generation == generation
    }

    mutating func enqueue(_ frames: [EngineFrame], completion: UncheckedSendable<() -> ()>?) {
        self.outgoing.append(PendingWrite(frames: frames, completion: completion))
    }

    /// Most packets in one POST: python-engineio rejects payloads of more than 16 packets
    /// with 400 ("Too many packets in payload", `Payload.max_decode_packets`).
    static let maximumPacketsPerPost = 16

    /// Takes the next batch: for polling, whole writes up to `maxPayload` bytes and
    /// ``maximumPacketsPerPost`` packets (at least one write);
    /// for WebSocket, everything queued.
    mutating func takeBatch(polling: Bool) -> [PendingWrite] {
        guard polling else {
            defer { self.outgoing.removeAll() }
            return self.outgoing
        }
        var size = 0
        var frames = 0
        var count = 0
        for write in self.outgoing {
            let writeSize = write.frames.reduce(0) { $0 + $1.byteCount + 1 }
            if count > 0 && (size + writeSize > self.maxPayload
                             || frames + write.frames.count > Self.maximumPacketsPerPost) { break }
            size += writeSize
            frames += write.frames.count
            count += 1
        }
        defer { self.outgoing.removeFirst(count) }
        return Array(self.outgoing.prefix(count))
    }

    /// Records `Set-Cookie` fields (only `name=value`; attributes are ignored).
    mutating func storeCookies(_ setCookieValues: [String]) {
        for value in setCookieValues {
            let pair = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[pair.startIndex..<equals].trimmingCharacters(in: .whitespaces)
            let cookieValue = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            self.stickyCookies.removeAll(where: { $0.name == name })
            if self.stickyCookies.count < 50 {
                self.stickyCookies.append((name, cookieValue))
            }
        }
    }
}
