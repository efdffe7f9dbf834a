import RealtimeTime

/// The bookkeeping of idle keep-alive connections, as a state machine with time as an input.
///
/// Idle connections are kept per ``HTTPOrigin`` (most recently used first out), at most
/// `maxIdlePerOrigin` per origin and `maxIdleTotal` in all, each for at most `idleLifetime`.
/// Inputs return the connections the owner must close (after releasing its lock).
struct HTTPConnectionPoolState<Connection> {
    private struct IdleConnection {
        var connection: Connection
        var since: MonotonicInstant
    }

    let maxIdlePerOrigin: Int
    let maxIdleTotal: Int
    let idleLifetime: TimeAmount
    private var idle: [HTTPOrigin: [IdleConnection]] = [:]
    private(set) var idleCount = 0
    /// How many origins have a list, empty ones included (for tests: at most
    /// ``maxIdleTotal`` + 1 empty lists are kept).
    var originCount: Int { self.idle.count }
    private var isShutDown = false

    init(maxIdlePerOrigin: Int, maxIdleTotal: Int, idleLifetime: TimeAmount) {
        self.maxIdlePerOrigin = maxIdlePerOrigin
        self.maxIdleTotal = maxIdleTotal
        self.idleLifetime = idleLifetime
    }

    /// An idle connection to `origin`, if one is fresh enough, and the stale ones to close.
    ///
    /// The origin's list is changed in place and kept when it empties (while there are no
    /// more origins than ``maxIdleTotal``), so a keep-alive exchange that takes its connection
    /// out and puts it back allocates nothing.
    mutating func checkout(_ origin: HTTPOrigin, now: MonotonicInstant)
        -> (connection: Connection?, toClose: [Connection])
    {
        guard let index = self.idle.index(forKey: origin), !self.idle.values[index].isEmpty else { return (nil, []) }
        var toClose: [Connection] = []
        var found: Connection?
        while let candidate = self.idle.values[index].popLast() {
            self.idleCount -= 1
            if now - candidate.since >= self.idleLifetime {
                toClose.append(candidate.connection)
            } else {
                found = candidate.connection
                break
            }
        }
        if self.idle.values[index].isEmpty, self.idle.count > self.maxIdleTotal { self.idle.remove(at: index) }
        return (found, toClose)
    }

    /// Puts a connection that finished an exchange cleanly back; returns what to close
    /// (itself after shutdown, or the oldest idle connections past the bounds).
    mutating func checkin(
        _ connection: Connection, origin: HTTPOrigin,
        now: MonotonicInstant
    ) -> [Connection] {
        guard !self.isShutDown, self.maxIdlePerOrigin > 0, self.maxIdleTotal > 0 else { return [connection] }
        var toClose: [Connection] = []
        // The origin's list is looked up once (hashing an origin hashes its TLS settings too).
        if self.idle.index(forKey: origin) == nil { self.idle[origin] = [] }
        let index = self.idle.index(forKey: origin)!
        self.idle.values[index].append(IdleConnection(connection: connection, since: now))
        self.idleCount += 1
        if self.idle.values[index].count > self.maxIdlePerOrigin {
            toClose.append(self.idle.values[index].removeFirst().connection)
            self.idleCount -= 1
        }
        while self.idleCount > self.maxIdleTotal, let oldest = self.oldestOrigin() {
            toClose.append(self.idle[oldest, default: []].removeFirst().connection)
            if self.idle[oldest, default: []].isEmpty { self.idle[oldest] = nil }
            self.idleCount -= 1
        }
        return toClose
    }

    /// Forgets every idle connection (returned to close); later check-ins are refused.
    mutating func shutdown() -> [Connection] {
        self.isShutDown = true
        return self.removeAll()
    }

    /// Forgets every idle connection (returned to close).
    mutating func removeAll() -> [Connection] {
        let all = self.idle.values.flatMap { $0.map(\.connection) }
        self.idle.removeAll()
        self.idleCount = 0
        return all
    }

    /// The origin whose longest-idle connection is the oldest (lists kept empty do not count).
    private func oldestOrigin() -> HTTPOrigin? {
        var oldest: (origin: HTTPOrigin, since: MonotonicInstant)?
        for (origin, list) in self.idle {
            guard let first = list.first else { continue }
            if oldest.map({ first.since < $0.since }) ?? true { oldest = (origin, first.since) }
        }
        return oldest?.origin
    }
}
