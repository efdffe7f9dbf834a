import RealtimeIO
import RealtimeTime
import Testing

@testable import RealtimeHTTP

@Suite struct HTTPConnectionPoolStateTests {
    let origin = HTTPOrigin(isSecure: false, host: "a.test", port: 80, tls: nil)
    let other = HTTPOrigin(isSecure: false, host: "b.test", port: 80, tls: nil)
    let secure = HTTPOrigin(isSecure: true, host: "a.test", port: 80, tls: TLSConfiguration())
    let start = MonotonicInstant.now

    @Test func reusesTheMostRecentIdleConnectionOfTheSameOrigin() {
        var pool = HTTPConnectionPoolState<Int>(maxIdlePerOrigin: 4, maxIdleTotal: 10, idleLifetime: .seconds(60))
        #expect(pool.checkin(1, origin: self.origin, now: self.start).isEmpty)
        #expect(pool.checkin(2, origin: self.origin, now: self.start).isEmpty)
        #expect(pool.checkin(3, origin: self.other, now: self.start).isEmpty)
        #expect(pool.checkout(self.secure, now: self.start).connection == nil)
        #expect(pool.checkout(self.origin, now: self.start).connection == 2)
        #expect(pool.checkout(self.origin, now: self.start).connection == 1)
        #expect(pool.checkout(self.origin, now: self.start).connection == nil)
        #expect(pool.idleCount == 1)
    }

    /// An origin's list stays when its last connection is taken (a keep-alive exchange takes
    /// it out and puts it back without allocating), but no more than `maxIdleTotal` empty
    /// lists stay however many origins were used.
    @Test func emptiedOriginListsStayButAreBounded() {
        var pool = HTTPConnectionPoolState<Int>(maxIdlePerOrigin: 2, maxIdleTotal: 3, idleLifetime: .seconds(60))
        for round in 0..<3 {
            #expect(pool.checkin(round, origin: self.origin, now: self.start).isEmpty)
            #expect(pool.checkout(self.origin, now: self.start).connection == round)
        }
        #expect(pool.originCount == 1 && pool.idleCount == 0)
        for port in 1...50 {
            let origin = HTTPOrigin(isSecure: false, host: "c.test", port: UInt16(port), tls: nil)
            _ = pool.checkin(port, origin: origin, now: self.start + .milliseconds(Int64(port)))
            #expect(pool.checkout(origin, now: self.start + .milliseconds(Int64(port))).connection == port)
            #expect(pool.originCount <= pool.maxIdleTotal + 1)
        }
        #expect(pool.idleCount == 0)
        // Kept empty lists do not count as the oldest idle connection.
        #expect(pool.checkin(100, origin: self.origin, now: self.start + .seconds(1)).isEmpty)
        #expect(pool.checkin(101, origin: self.other, now: self.start + .seconds(2)).isEmpty)
        #expect(pool.checkin(102, origin: self.secure, now: self.start + .seconds(3)).isEmpty)
        #expect(pool.checkin(103, origin: self.other, now: self.start + .seconds(4)) == [100])
        #expect(pool.idleCount == 3)
    }

    @Test func closesConnectionsIdleForTooLong() {
        var pool = HTTPConnectionPoolState<Int>(maxIdlePerOrigin: 4, maxIdleTotal: 10, idleLifetime: .seconds(5))
        _ = pool.checkin(1, origin: self.origin, now: self.start)
        _ = pool.checkin(2, origin: self.origin, now: self.start + .seconds(3))
        let result = pool.checkout(self.origin, now: self.start + .seconds(9))
        #expect(result.connection == nil)
        #expect(result.toClose.sorted() == [1, 2])
        #expect(pool.idleCount == 0)
    }

    @Test func evictsTheOldestPastTheBounds() {
        var pool = HTTPConnectionPoolState<Int>(maxIdlePerOrigin: 2, maxIdleTotal: 3, idleLifetime: .seconds(60))
        #expect(pool.checkin(1, origin: self.origin, now: self.start).isEmpty)
        #expect(pool.checkin(2, origin: self.origin, now: self.start + .seconds(1)).isEmpty)
        #expect(pool.checkin(3, origin: self.origin, now: self.start + .seconds(2)) == [1])
        #expect(pool.checkin(4, origin: self.other, now: self.start + .seconds(3)).isEmpty)
        #expect(pool.checkin(5, origin: self.other, now: self.start + .seconds(4)) == [2])
        #expect(pool.idleCount == 3)
    }

    @Test func refusesCheckInsAfterShutdown() {
        var pool = HTTPConnectionPoolState<Int>(maxIdlePerOrigin: 2, maxIdleTotal: 3, idleLifetime: .seconds(60))
        _ = pool.checkin(1, origin: self.origin, now: self.start)
        #expect(pool.shutdown() == [1])
        #expect(pool.checkin(2, origin: self.origin, now: self.start) == [2])
        #expect(pool.idleCount == 0)
    }
}
