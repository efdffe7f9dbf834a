// The event loop's timer heap, without a loop, a clock or a thread: instants are made up.
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@Suite("TimerHeap")
struct TimerHeapTests {
    private static let origin = MonotonicInstant(nanosecondsSinceOrigin: 1_000_000_000)

    private static func at(_ milliseconds: Int64) -> MonotonicInstant {
        Self.origin + .milliseconds(milliseconds)
    }

    /// Takes every timer due at `now`, in firing order.
    private static func drain(_ heap: inout TimerHeap<String>, at now: MonotonicInstant) -> [String] {
        var fired: [String] = []
        while let payload = heap.popEarliest(dueAt: now) { fired.append(payload) }
        return fired
    }

    // MARK: Ordering

    @Test("timers fire by deadline; equal deadlines in scheduling order")
    func orderWithEqualDeadlines() {
        var heap = TimerHeap<String>()
        heap.schedule(at: Self.at(20), "c1")
        heap.schedule(at: Self.at(10), "a1")
        heap.schedule(at: Self.at(20), "c2")
        heap.schedule(at: Self.at(15), "b")
        heap.schedule(at: Self.at(10), "a2")
        heap.schedule(at: Self.at(20), "c3")
        heap.schedule(at: Self.at(10), "a3")
        #expect(heap.count == 7)
        #expect(heap.earliestDeadline == Self.at(10))
        #expect(Self.drain(&heap, at: Self.at(9)) == [])
        #expect(Self.drain(&heap, at: Self.at(10)) == ["a1", "a2", "a3"])
        #expect(heap.earliestDeadline == Self.at(15))
        #expect(Self.drain(&heap, at: Self.at(100)) == ["b", "c1", "c2", "c3"])
        #expect(heap.isEmpty)
        #expect(heap.earliestDeadline == nil)
    }

    @Test("a timer due exactly now fires; one a nanosecond later does not")
    func dueBoundary() {
        var heap = TimerHeap<String>()
        heap.schedule(at: Self.at(10), "due")
        heap.schedule(at: Self.at(10) + .nanoseconds(1), "later")
        #expect(Self.drain(&heap, at: Self.at(10)) == ["due"])
        #expect(heap.count == 1)
    }

    @Test("1,000 timers at one deadline fire in scheduling order")
    func manyEqualDeadlines() {
        var heap = TimerHeap<String>()
        for index in 0..<1000 { heap.schedule(at: Self.at(5), "\(index)") }
        #expect(Self.drain(&heap, at: Self.at(5)) == (0..<1000).map { "\($0)" })
    }

    // MARK: Cancelling

    @Test("cancelling the root moves the next deadline to the next timer")
    func cancelRoot() {
        var heap = TimerHeap<String>()
        let root = heap.schedule(at: Self.at(1), "root")
        for ms in [5, 3, 9, 7, 2] { heap.schedule(at: Self.at(Int64(ms)), "t\(ms)") }
        #expect(heap.cancel(root) == "root")
        #expect(!heap.contains(root))
        #expect(heap.earliestDeadline == Self.at(2))
        #expect(heap.isConsistent)
        #expect(Self.drain(&heap, at: Self.at(100)) == ["t2", "t3", "t5", "t7", "t9"])
    }

    @Test("cancelling a middle timer keeps the others' order")
    func cancelMiddle() {
        var heap = TimerHeap<String>()
        var ids: [Int: TimerHeap<String>.ID] = [:]
        for ms in [8, 1, 6, 3, 5, 2, 7, 4] { ids[ms] = heap.schedule(at: Self.at(Int64(ms)), "t\(ms)") }
        #expect(heap.cancel(ids[4]!) == "t4")
        #expect(heap.cancel(ids[6]!) == "t6")
        #expect(heap.isConsistent)
        #expect(heap.count == 6)
        #expect(Self.drain(&heap, at: Self.at(100)) == ["t1", "t2", "t3", "t5", "t7", "t8"])
    }

    @Test("cancelling the last-scheduled (bottom) timer")
    func cancelLast() {
        var heap = TimerHeap<String>()
        for ms in [1, 2, 3, 4] { heap.schedule(at: Self.at(Int64(ms)), "t\(ms)") }
        let last = heap.schedule(at: Self.at(9), "t9")
        #expect(heap.cancel(last) == "t9")
        #expect(heap.isConsistent)
        #expect(Self.drain(&heap, at: Self.at(100)) == ["t1", "t2", "t3", "t4"])
    }

    @Test("cancelling the only timer empties the heap")
    func cancelOnly() {
        var heap = TimerHeap<String>()
        let only = heap.schedule(at: Self.at(1), "only")
        #expect(heap.cancel(only) == "only")
        #expect(heap.isEmpty)
        #expect(heap.earliestDeadline == nil)
    }

    @Test("cancelling a fired, a cancelled or a never-issued id changes nothing")
    func cancelNotScheduled() {
        var heap = TimerHeap<String>()
        let fired = heap.schedule(at: Self.at(1), "fired")
        let cancelled = heap.schedule(at: Self.at(2), "cancelled")
        heap.schedule(at: Self.at(3), "kept")
        #expect(heap.popEarliest(dueAt: Self.at(1)) == "fired")
        #expect(heap.cancel(cancelled) == "cancelled")

        // An id this heap never issued (ids are sequence numbers, so another heap's fourth).
        var other = TimerHeap<String>()
        for payload in ["w", "x", "y"] { other.schedule(at: Self.at(1), payload) }
        let foreign = other.schedule(at: Self.at(1), "z")

        #expect(heap.cancel(fired) == nil)
        #expect(heap.cancel(cancelled) == nil)
        #expect(heap.cancel(foreign) == nil)
        #expect(!heap.contains(fired))
        #expect(heap.count == 1)
        #expect(heap.isConsistent)
        #expect(Self.drain(&heap, at: Self.at(100)) == ["kept"])
    }

    // MARK: Against a model

    /// The reference: an array kept sorted by (deadline, scheduling order), searched linearly.
    private struct SortedArrayModel {
        var timers: [(deadline: MonotonicInstant, sequence: Int, payload: String)] = []

        mutating func schedule(at deadline: MonotonicInstant, sequence: Int, _ payload: String) {
            let index = self.timers.firstIndex { ($0.deadline, $0.sequence) > (deadline, sequence) } ?? self.timers.count
            self.timers.insert((deadline, sequence, payload), at: index)
        }

        mutating func cancel(sequence: Int) -> String? {
            guard let index = self.timers.firstIndex(where: { $0.sequence == sequence }) else { return nil }
            return self.timers.remove(at: index).payload
        }

        mutating func popEarliest(dueAt now: MonotonicInstant) -> String? {
            guard let first = self.timers.first, first.deadline <= now else { return nil }
            return self.timers.removeFirst().payload
        }
    }

    @Test("random schedules, cancels and pops match a sorted-array model", arguments: [1, 2, 3, 42, 2024, 0xDEAD_BEEF] as [UInt64])
    func matchesModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var heap = TimerHeap<String>()
        var model = SortedArrayModel()
        // Every id ever handed out, by sequence (fired and cancelled ones stay, to cancel again).
        var ids: [TimerHeap<String>.ID] = []
        var now: Int64 = 0
        for step in 0..<5_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                // Deadlines from a narrow window, so equal deadlines are common.
                let deadline = Self.at(now + Int64.random(in: 0..<40, using: &random))
                let payload = "s\(step)"
                ids.append(heap.schedule(at: deadline, payload))
                model.schedule(at: deadline, sequence: ids.count, payload)
            case 5..<8:
                guard !ids.isEmpty else { continue }
                let index = Int.random(in: 0..<ids.count, using: &random)
                #expect(heap.cancel(ids[index]) == model.cancel(sequence: index + 1), "seed \(seed), step \(step)")
            default:
                now += Int64.random(in: 0..<8, using: &random)
                var fromHeap: [String] = []
                var fromModel: [String] = []
                while let payload = heap.popEarliest(dueAt: Self.at(now)) { fromHeap.append(payload) }
                while let payload = model.popEarliest(dueAt: Self.at(now)) { fromModel.append(payload) }
                #expect(fromHeap == fromModel, "seed \(seed), step \(step)")
            }
            #expect(heap.count == model.timers.count, "seed \(seed), step \(step)")
            #expect(heap.earliestDeadline == model.timers.first?.deadline, "seed \(seed), step \(step)")
            if step % 97 == 0 {
                #expect(heap.isConsistent, "seed \(seed), step \(step)")
                let live = Set(model.timers.map(\.sequence))
                let wrong = ids.indices.filter { heap.contains(ids[$0]) != live.contains($0 + 1) }
                #expect(wrong.isEmpty, "seed \(seed), step \(step)")
            }
        }
        #expect(heap.isConsistent)
        #expect(Self.drain(&heap, at: .distantFuture) == model.timers.map(\.payload))
    }

    // MARK: Memory

    @Test("100,000 timers scheduled then cancelled (in random order) leave no entries behind")
    func burstLeavesNothing() {
        var random = SplitMix64(seed: 7)
        var heap = TimerHeap<String>()
        var ids: [TimerHeap<String>.ID] = []
        ids.reserveCapacity(100_000)
        for index in 0..<100_000 {
            ids.append(heap.schedule(at: Self.at(Int64.random(in: 0..<60_000, using: &random)), "t\(index)"))
        }
        #expect(heap.count == 100_000)
        #expect(heap.isConsistent)
        ids.shuffle(using: &random)
        #expect(ids.filter { heap.cancel($0) == nil }.isEmpty)
        #expect(heap.isEmpty)
        #expect(heap.earliestDeadline == nil)
        #expect(ids.allSatisfy { !heap.contains($0) })
        // Storage shrank back to the floor, not the burst's peak.
        let capacity = heap.storageCapacity
        #expect(capacity.entries <= TimerHeap<String>.compactionFloor)
        #expect(capacity.slots <= 2 * TimerHeap<String>.compactionFloor)
    }

    @Test("100,000 schedule-and-cancel pairs with few live timers keep storage at the floor")
    func churnStaysBounded() {
        var random = SplitMix64(seed: 11)
        var heap = TimerHeap<String>()
        var live: [TimerHeap<String>.ID] = []
        var now: Int64 = 0
        for index in 0..<100_000 {
            // A heartbeat-like pattern: arm a timeout, cancel an older one before it fires.
            live.append(heap.schedule(at: Self.at(now + 25_000), "t\(index)"))
            if live.count > 64 {
                let victim = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                if heap.cancel(victim) == nil { Issue.record("timer \(index): a live timer was not found") }
            }
            now += 1
        }
        #expect(heap.count == 64)
        #expect(heap.isConsistent)
        let capacity = heap.storageCapacity
        #expect(capacity.entries <= TimerHeap<String>.compactionFloor)
        #expect(capacity.slots <= 2 * TimerHeap<String>.compactionFloor)
        for id in live { heap.cancel(id) }
        #expect(heap.isEmpty)
    }

    @Test("storage follows the live timers down after a peak, and the heap keeps working")
    func shrinksAfterPeak() {
        var heap = TimerHeap<String>()
        var ids: [TimerHeap<String>.ID] = []
        for index in 0..<50_000 { ids.append(heap.schedule(at: Self.at(Int64(index % 977)), "t\(index)")) }
        let peak = heap.storageCapacity.entries
        // Keep every 100th timer: 500 live.
        for (index, id) in ids.enumerated() where index % 100 != 0 { heap.cancel(id) }
        #expect(heap.count == 500)
        #expect(heap.isConsistent)
        #expect(heap.storageCapacity.entries <= 8 * 500)
        #expect(heap.storageCapacity.entries < peak / 8)
        let fired = Self.drain(&heap, at: .distantFuture)
        let expected = (0..<500).map { $0 * 100 }.sorted { ($0 % 977, $0) < ($1 % 977, $1) }.map { "t\($0)" }
        #expect(fired == expected)
    }
}
