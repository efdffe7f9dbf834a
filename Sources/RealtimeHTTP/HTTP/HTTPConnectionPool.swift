import RealtimeSync
import RealtimeTime

/// The idle keep-alive connections of one ``HTTPClient``: one lock around an
/// ``HTTPConnectionPoolState``; connections it evicts are closed after the lock is released.
final class HTTPConnectionPool: Sendable {
    private let state: LockedValue<HTTPConnectionPoolState<HTTPConnection>>

    init(maxIdlePerOrigin: Int, maxIdleTotal: Int, idleLifetime: TimeAmount) {
        self.state = LockedValue(
            HTTPConnectionPoolState(
                maxIdlePerOrigin: maxIdlePerOrigin,
                maxIdleTotal: maxIdleTotal,
                idleLifetime: idleLifetime))
    }

    var idleCount: Int { self.state.withLock { $0.idleCount } }

    func checkout(_ origin: HTTPOrigin) -> HTTPConnection? {
        let now = MonotonicInstant.now
        let (connection, toClose) = self.state.withLock { $0.checkout(origin, now: now) }
        for stale in toClose { stale.close() }
        return connection
    }

    func checkin(_ connection: HTTPConnection) {
        let now = MonotonicInstant.now
        let toClose = self.state.withLock { $0.checkin(connection, origin: connection.origin, now: now) }
        for evicted in toClose { evicted.close() }
    }

    func closeIdleConnections() {
        let toClose = self.state.withLock { $0.removeAll() }
        for connection in toClose { connection.close() }
    }

    func shutdown() {
        let toClose = self.state.withLock { $0.shutdown() }
        for connection in toClose { connection.close() }
    }
}
