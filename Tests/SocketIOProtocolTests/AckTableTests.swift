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

    /// The wake-up is armed no later than the earliest deadline; entries leaving do not move
    /// it, and when it fires it moves to what still waits.
    @Test func theWakeUpIsArmedForTheEarliestDeadlineAndLeftAsItIsWhenEntriesLeave() {
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
        // Entries leave without a change, the one the wake-up was armed for too.
        #expect(table.resolve(id: later) == "later")
        #expect(table.resolve(id: forever) == "forever")
        #expect(table.resolve(id: early) == "early")
        #expect(table.wakeUpChange() == nil)
        #expect(table.armedWakeUp == self.start + .seconds(1))
        // It fires at 1 s and finds nothing due; it moves on to what still waits.
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(1)) == true)
        #expect(table.expire(now: self.start + .seconds(1)).isEmpty)
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(10)))
        // It fires at 10 s: what was due leaves, and with nothing left the owner lets go of
        // the fired timer.
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(10)) == true)
        #expect(table.expire(now: self.start + .seconds(10)).map(\.id) == [late])
        #expect(table.wakeUpChange() == .cancel)
        #expect(table.wakeUpChange() == nil)
        #expect(table.armedWakeUp == nil)
        // With none armed, the next deadline arms again.
        _ = table.register("next", deadline: self.start + .seconds(30))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(30)))
    }

    /// The steady state of a request/response loop: each emit registers a deadline later than
    /// the one before and its answer resolves it. One arm in total, no change per ack.
    @Test func registeringAndResolvingWithIncreasingDeadlinesArmsOnce() {
        var table = AckTable<Int>()
        var changes: [AckTable<Int>.WakeUpChange] = []
        for index in 0..<100 {
            let now = self.start + .milliseconds(Int64(index))
            let id = table.register(index, deadline: now + .seconds(5))
            if let change = table.wakeUpChange() { changes.append(change) }
            #expect(table.resolve(id: id) == index)
            if let change = table.wakeUpChange() { changes.append(change) }
        }
        #expect(changes == [.arm(self.start + .seconds(5))])
        #expect(table.isEmpty)
        // The one wake-up fires once, finds nothing, and nothing is armed again.
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(5)) == true)
        #expect(table.expire(now: self.start + .seconds(5)).isEmpty)
        #expect(table.wakeUpChange() == .cancel)
        #expect(table.armedWakeUp == nil)
    }

    /// When the armed wake-up fires it is armed again for the earliest deadline still
    /// waiting, whichever entries left since.
    @Test func theFiredWakeUpIsArmedForTheNextEarliestRemainingDeadline() {
        var table = AckTable<String>()
        _ = table.register("a", deadline: self.start + .seconds(1))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(1)))
        let b = table.register("b", deadline: self.start + .seconds(2))
        _ = table.register("c", deadline: self.start + .seconds(4))
        _ = table.register("d", deadline: self.start + .seconds(3))
        _ = table.register("forever", deadline: nil)
        #expect(table.resolve(id: b) == "b")
        #expect(table.wakeUpChange() == nil)
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(1)) == true)
        #expect(table.expire(now: self.start + .seconds(1)).map(\.pending) == ["a"])
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(3)))
        #expect(table.armedWakeUp == self.start + .seconds(3))
        #expect(table.wakeUpChange() == nil)
    }

    /// A wake-up replaced after it fired (its cancel too late) still runs `expire`: the table
    /// does not take it for the current one, takes nothing that is not due, and the current
    /// wake-up stays armed.
    @Test func aReplacedWakeUpFiringLateLeavesTheCurrentOne() {
        var table = AckTable<String>()
        _ = table.register("a", deadline: self.start + .seconds(5))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(5)))
        let b = table.register("b", deadline: self.start + .seconds(1))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(1)))
        #expect(table.resolve(id: b) == "b")
        #expect(table.wakeUpChange() == nil)
        // The replaced wake-up fires although it was cancelled (its cancel came too late); the
        // clock is still at 1 s here, the current wake-up's deadline.
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(5)) == false)
        #expect(table.expire(now: self.start + .seconds(1)).isEmpty)
        #expect(table.wakeUpChange() == nil)
        #expect(table.armedWakeUp == self.start + .seconds(1))
        // The current one fires: it moves on to a's deadline, and a times out there.
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(1)) == true)
        #expect(table.expire(now: self.start + .seconds(1)).isEmpty)
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(5)))
        #expect(table.wakeUpFired(armedFor: self.start + .seconds(5)) == true)
        #expect(table.expire(now: self.start + .seconds(5)).map(\.pending) == ["a"])
        #expect(table.wakeUpChange() == .cancel)
    }

    @Test func removingEntriesLeavesTheWakeUpAndRemovingAllCancelsIt() {
        var table = AckTable<Int>()
        _ = table.register(1, deadline: self.start + .seconds(3))
        let second = table.register(2, deadline: self.start + .seconds(4))
        _ = table.register(3, deadline: self.start + .seconds(5))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(3)))
        // The entry the wake-up was armed for, then the next, leave: no change.
        #expect(table.remove(where: { $0 == 1 }).map(\.pending) == [1])
        #expect(table.resolve(id: second, if: { $0 == 2 }) == 2)
        #expect(table.wakeUpChange() == nil)
        #expect(table.armedWakeUp == self.start + .seconds(3))
        #expect(table.removeAll().map(\.pending) == [3])
        #expect(table.wakeUpChange() == .cancel)
        #expect(table.armedWakeUp == nil)
        #expect(table.wakeUpChange() == nil)
        // With nothing armed, removing all again asks for nothing.
        #expect(table.removeAll().isEmpty)
        #expect(table.wakeUpChange() == nil)
    }

    @Test func releasingAnIdleWakeUpCancelsItOnlyWhenNoDeadlineWaits() {
        var table = AckTable<Int>()
        let a = table.register(1, deadline: self.start + .seconds(3))
        _ = table.register(2, deadline: self.start + .seconds(4))
        #expect(table.wakeUpChange() == .arm(self.start + .seconds(3)))
        #expect(table.resolve(id: a) == 1)
        table.releaseIdleWakeUp()
        #expect(table.wakeUpChange() == nil)  // 2 still waits: the wake-up stays
        _ = table.remove(where: { _ in true })
        table.releaseIdleWakeUp()
        #expect(table.wakeUpChange() == .cancel)
        table.releaseIdleWakeUp()
        #expect(table.wakeUpChange() == nil)
    }

    /// Random registrations, answers, expiries, removals and firings (the current wake-up at
    /// its deadline, or a replaced one late). After every step, with the returned change
    /// applied: one wake-up, armed no later than the earliest deadline (none only when nothing
    /// waits with a deadline); every due entry expired once the wake-up fired; and a change
    /// only for an earlier registration, the armed wake-up firing, or a removal of all.
    @Test func randomChangesKeepOneWakeUpNoLaterThanTheEarliestDeadline() {
        var generator = SplitMix64(seed: 0x5EED_AC4)
        var arms = 0
        var firings = 0
        var lateFirings = 0
        for _ in 0..<200 {
            var table = AckTable<Int>()
            var armed: MonotonicInstant?
            // Wake-ups the table replaced: their cancels may come too late.
            var replaced: [MonotonicInstant] = []
            var now = self.start
            for step in 0..<60 {
                var mayChange = false
                // Applies the table's change as an owner does.
                func apply(_ change: AckTable<Int>.WakeUpChange?) {
                    switch change {
                    case .arm(let deadline)?:
                        #expect(mayChange, "step \(step): an arm no input asked for")
                        if let armed { replaced.append(armed) }
                        armed = deadline
                        arms += 1
                    case .cancel?:
                        #expect(mayChange, "step \(step): a cancel no input asked for")
                        if let armed { replaced.append(armed) }
                        armed = nil
                    case nil:
                        break
                    }
                }
                switch generator.next() % 7 {
                case 0, 1:
                    let seconds = Int64(generator.next() % 8)
                    let deadline: MonotonicInstant? = seconds == 0 ? nil : now + .seconds(seconds)
                    mayChange = deadline.map { deadline in armed.map { deadline < $0 } ?? true } ?? false
                    _ = table.register(step, deadline: deadline)
                    apply(table.wakeUpChange())
                case 2:
                    _ = table.resolve(id: Int(generator.next() % UInt64(table.peekNextID + 1)))
                    apply(table.wakeUpChange())
                case 3:
                    // Time passes: the armed wake-up fires at its deadline, as often as it is
                    // armed again by then.
                    let target = now + .milliseconds(Int64(generator.next() % 3000))
                    while let deadline = armed, deadline <= target {
                        now = max(now, deadline)
                        #expect(table.wakeUpFired(armedFor: deadline) == true)
                        armed = nil
                        for entry in table.expire(now: now) {
                            #expect(entry.deadline.map { $0 <= now } == true)
                        }
                        mayChange = true
                        apply(table.wakeUpChange())
                        #expect(table.nextDeadline.map { $0 > now } ?? true)
                        firings += 1
                    }
                    now = target
                case 4:
                    let odd = generator.next() % 2 == 1
                    _ = table.remove(where: { ($0 % 2 == 1) == odd })
                    apply(table.wakeUpChange())
                case 5:
                    // A replaced wake-up fires late. (One at the deadline armed now cannot be
                    // told from the current one; the table would arm it again at the same
                    // deadline.)
                    guard let late = replaced.randomElement(using: &generator), late != armed else { break }
                    #expect(table.wakeUpFired(armedFor: late) == false)
                    _ = table.expire(now: now)
                    apply(table.wakeUpChange())
                    lateFirings += 1
                default:
                    if generator.next() % 8 == 0 {
                        mayChange = armed != nil
                        _ = table.removeAll()
                        apply(table.wakeUpChange())
                        #expect(armed == nil)
                    }
                }
                #expect(armed == table.armedWakeUp)
                if let next = table.nextDeadline {
                    #expect(armed.map { $0 <= next } == true, "step \(step): the earliest deadline has no wake-up")
                }
                #expect(table.wakeUpChange() == nil)
            }
        }
        // Each kind of step happened.
        #expect(arms > 0 && firings > 0 && lateFirings > 0)
    }
}
