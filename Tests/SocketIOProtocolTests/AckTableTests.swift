import RealtimeTime
import TestSupport
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

    // MARK: The wake-up, an action the table returns

    @Test func theWakeUpFollowsTheEarliestDeadline() {
        var table = AckTable<String>()
        #expect(table.wakeUpChange() == nil)
        // No deadline: nothing to arm.
        let forever = table.register("forever", deadline: nil)
        #expect(table.wakeUpChange() == nil)
        let late = table.register("late", deadline: self.start + .seconds(10))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(10)))
        #expect(table.wakeUpChange() == nil)
        // A later deadline keeps the armed wake-up; an earlier one replaces it.
        let later = table.register("later", deadline: self.start + .seconds(20))
        #expect(table.wakeUpChange() == nil)
        let early = table.register("early", deadline: self.start + .seconds(1))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(1)))
        #expect(table.armedWakeUp == self.start + .seconds(1))
        // Entries that are not the earliest leave without a change.
        #expect(table.resolve(id: later) == "later")
        #expect(table.resolve(id: forever) == "forever")
        #expect(table.wakeUpChange() == nil)
        // The earliest one answered: the wake-up moves to the next deadline.
        #expect(table.resolve(id: early) == "early")
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(10)))
        // The wake-up fires: what was due leaves, and nothing with a deadline is left.
        #expect(table.expire(now: self.start + .seconds(10)).map(\.id) == [late])
        #expect(table.wakeUpChange() == .cancel)
        #expect(table.armedWakeUp == nil)
        #expect(table.wakeUpChange() == nil)
    }

    /// A wake-up replaced after it fired still runs `expire`: it takes nothing that is not
    /// due, and the current wake-up stays.
    @Test func aReplacedWakeUpFiringLateLeavesTheCurrentOne() {
        var table = AckTable<String>()
        _ = table.register("a", deadline: self.start + .seconds(5))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(5)))
        let b = table.register("b", deadline: self.start + .seconds(1))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(1)))
        #expect(table.resolve(id: b) == "b")
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(5)))
        // The wake-up armed for 1 s fires anyway, at 1 s.
        #expect(table.expire(now: self.start + .seconds(1)).isEmpty)
        #expect(table.wakeUpChange() == nil)
        #expect(table.armedWakeUp == self.start + .seconds(5))
    }

    @Test func removingEveryEntryCancelsTheWakeUp() {
        var table = AckTable<Int>()
        _ = table.register(1, deadline: self.start + .seconds(3))
        _ = table.register(2, deadline: self.start + .seconds(4))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(3)))
        #expect(table.remove(where: { $0 == 2 }).map(\.pending) == [2])
        #expect(table.wakeUpChange() == nil)
        #expect(table.removeAll().map(\.pending) == [1])
        #expect(table.wakeUpChange() == .cancel)
    }

    /// Random registrations, answers, expiries and removals: after every change, applying the
    /// returned change leaves exactly one wake-up at the earliest deadline (none without one),
    /// and a change is returned only when that deadline moved.
    @Test func randomChangesKeepOneWakeUpAtTheEarliestDeadline() {
        var generator = SplitMix64(seed: 0x5EED_AC4)
        for _ in 0..<200 {
            var table = AckTable<Int>()
            var armed: MonotonicInstant?
            var now = self.start
            for step in 0..<60 {
                let armedBefore = armed
                switch generator.next() % 6 {
                case 0, 1:
                    let seconds = Int64(generator.next() % 8)
                    let deadline: MonotonicInstant? = seconds == 0 ? nil : now + .seconds(seconds)
                    _ = table.register(step, deadline: deadline)
                case 2:
                    _ = table.resolve(id: Int(generator.next() % UInt64(table.peekNextID + 1)))
                case 3:
                    now = now + .milliseconds(Int64(generator.next() % 3000))
                    for entry in table.expire(now: now) {
                        #expect(entry.deadline.map { $0 <= now } == true)
                    }
                case 4:
                    let odd = generator.next() % 2 == 1
                    _ = table.remove(where: { ($0 % 2 == 1) == odd })
                default:
                    if generator.next() % 8 == 0 { _ = table.removeAll() }
                }
                let change = table.wakeUpChange()
                switch change {
                case .arm(let deadline)?: armed = deadline
                case .cancel?: armed = nil
                case nil: break
                }
                #expect(armed == table.nextDeadline)
                #expect(armed == table.armedWakeUp)
                if change != nil { #expect(armed != armedBefore) }
                #expect(table.wakeUpChange() == nil)
            }
        }
    }
}
