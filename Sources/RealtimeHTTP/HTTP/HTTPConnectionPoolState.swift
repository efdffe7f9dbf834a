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
    private var isShutDown = false

    init(maxIdlePerOrigin: Int, maxIdleTotal: Int, idleLifetime: TimeAmount) {
        self.maxIdlePerOrigin = maxIdlePerOrigin
        self.maxIdleTotal = maxIdleTotal
        self.idleLifetime = idleLifetime
    }

    /// An idle connection to `origin`, if one is fresh enough, and the stale ones to close.
    mutating func checkout(_ origin: HTTPOrigin, now: MonotonicInstant)
        -> (connection: Connection?, toClose: [Connection])
    {
        guard var list = self.idle[origin], !list.isEmpty else { return (nil, []) }
        var toClose: [Connection] = []
        var found: Connection?
        while let candidate = list.popLast() {
            self.idleCount -= 1
            if now - candidate.since >= self.idleLifetime {
                toClose.append(candidate.connection)
            } else {
                found = candidate.connection
                break
            }
        }
        self.idle[origin] = list.isEmpty ? nil : list
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
        var list = self.idle[origin] ?? []
        list.append(IdleConnection(connection: connection, since: now))
        self.idleCount += 1
        if list.count > self.maxIdlePerOrigin {
            toClose.append(list.removeFirst().connection)
            self.idleCount -= 1
        }
        self.idle[origin] = list
        while self.idleCount > self.maxIdleTotal, let oldest = self.oldestOrigin(),
            var oldestList = self.idle[oldest], !oldestList.isEmpty
        {
            toClose.append(oldestList.removeFirst().connection)
            self.idle[oldest] = oldestList.isEmpty ? nil : oldestList
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

    private func oldestOrigin() -> HTTPOrigin? {
        self.idle.min { ($0.value.first?.since ?? .now) < ($1.value.first?.since ?? .now) }?.key
    }
}
