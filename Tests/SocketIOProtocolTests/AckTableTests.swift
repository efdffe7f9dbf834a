import RealtimeTime
import Testing

@testable import SocketIOProtocol

@Suite struct AckTableTests {
    let start = MonotonicInstant.now

    @Test func idsIncreaseFromZero() {
        var table = AckTable<String>()
        #expect(table.peekNextID == 0)
        #expect(table.register("a", deadline: nil) == 0)
        #expect(table.register("b", deadline: nil) == 1)
        #expect(table.register("c", deadline: nil) == 2)
        #expect(table.count == 3)
    }

    @Test func resolveReturnsOnceThenNil() {
        var table = AckTable<String>()
        let id = table.register("a", deadline: nil)
        #expect(table.resolve(id: id) == "a")
        #expect(table.resolve(id: id) == nil)
        #expect(table.resolve(id: 99) == nil)
        #expect(table.isEmpty)
        // Ids are not reused after resolution.
        #expect(table.register("b", deadline: nil) == 1)
    }

    @Test func expireReturnsOnlyDueEntriesInIdOrder() {
        var table = AckTable<String>()
        let late = table.register("late", deadline: self.start + .seconds(10))
        let early = table.register("early", deadline: self.start + .seconds(1))
        let forever = table.register("forever", deadline: nil)
        let alsoEarly = table.register("alsoEarly", deadline: self.start + .seconds(1))
        #expect(table.nextDeadline == self.start + .seconds(1))

        #expect(table.expire(now: self.start + .milliseconds(999)).isEmpty)
        let expired = table.expire(now: self.start + .seconds(1))
        #expect(expired.map(\.id) == [early, alsoEarly])
        #expect(expired.map(\.pending) == ["early", "alsoEarly"])
        #expect(table.nextDeadline == self.start + .seconds(10))

        // An expired id resolves to nothing (a late ACK from the server is dropped).
        #expect(table.resolve(id: early) == nil)
        #expect(table.expire(now: self.start + .seconds(60)).map(\.id) == [late])
        #expect(table.nextDeadline == nil)
        #expect(table.resolve(id: forever) == "forever")
    }

    @Test func removeAllEmptiesButKeepsCounting() {
        var table = AckTable<Int>()
        _ = table.register(10, deadline: nil)
        _ = table.register(11, deadline: self.start)
        #expect(table.removeAll().map(\.pending) == [10, 11])
        #expect(table.isEmpty)
        #expect(table.register(12, deadline: nil) == 2)
    }

    @Test func conditionalResolveLeavesOtherEntriesWaiting() {
        var acks = AckTable<String>()
        let callback = acks.register("callback", deadline: nil)
        let waiter = acks.register("waiter", deadline: nil)
        #expect(acks.resolve(id: callback, if: { $0 == "waiter" }) == nil)
        #expect(acks.contains(id: callback))
        #expect(acks.resolve(id: waiter, if: { $0 == "waiter" }) == "waiter")
        #expect(!acks.contains(id: waiter))
        #expect(acks.resolve(id: 99, if: { _ in true }) == nil)
        #expect(acks.resolve(id: callback) == "callback")
    }
}
