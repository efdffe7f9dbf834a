// Timer micro-benchmark (release build; not a test): with N timers armed, what one cancel
// and one re-arm cost, in RealtimeIO's `TimerHeap` (the event loop's timers since issue 36)
// and in the sorted array it replaced (`SortedArrayTimers` below: the same algorithm, a binary
// search to insert and a linear search to cancel, as `EventLoop` kept them before).
//
//   swift run -c release TimerBenchmark [--timers N] [--operations K] [--samples S]
//
// Each sample arms N timers at random deadlines, then times K operations, each a cancel of a
// random armed timer and a re-arm at a new deadline (what a heartbeat timeout does on every
// ping), on the thread's CPU clock; the table gives the median of S samples (default 7) in
// microseconds per operation and the ratio old / new.
import BenchmarkSupport
import RealtimeIO
import RealtimeTime

let options = CommandLineOptions()
let timerCount = options.integer("timers", 100_000)
let operations = options.integer("operations", 20_000)
let samples = options.integer("samples", 7)

/// The representation `TimerHeap` replaced: entries sorted by (deadline, sequence).
struct SortedArrayTimers {
    var entries: [(deadline: MonotonicInstant, sequence: Int)] = []
    var nextSequence = 0

    mutating func schedule(at deadline: MonotonicInstant) -> Int {
        self.nextSequence += 1
        let entry = (deadline: deadline, sequence: self.nextSequence)
        var low = 0
        var high = self.entries.count
        while low < high {
            let middle = (low + high) / 2
            let other = self.entries[middle]
            if (other.deadline, other.sequence) < (entry.deadline, entry.sequence) { low = middle + 1 } else { high = middle }
        }
        self.entries.insert(entry, at: low)
        return entry.sequence
    }

    mutating func cancel(_ sequence: Int) {
        if let index = self.entries.firstIndex(where: { $0.sequence == sequence }) { self.entries.remove(at: index) }
    }
}

/// A reproducible random stream (SplitMix64).
struct Random {
    var state: UInt64
    mutating func next(below bound: Int) -> Int {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

let base = MonotonicInstant.now
func deadline(_ random: inout Random) -> MonotonicInstant { base + .milliseconds(Int64(random.next(below: 60_000))) }

func measureHeap(seed: UInt64) -> Double {
    var random = Random(state: seed)
    var heap = TimerHeap<Int>()
    var ids = (0..<timerCount).map { heap.schedule(at: deadline(&random), $0) }
    let start = Measure.threadCPUSeconds()
    for _ in 0..<operations {
        let slot = random.next(below: ids.count)
        _ = heap.cancel(ids[slot])
        ids[slot] = heap.schedule(at: deadline(&random), slot)
    }
    return (Measure.threadCPUSeconds() - start) / Double(operations) * 1e6
}

func measureSortedArray(seed: UInt64) -> Double {
    var random = Random(state: seed)
    var timers = SortedArrayTimers()
    // Armed as by N schedules, but sorted once (N inserts into the array would take minutes).
    var ids = Array(1...timerCount)
    timers.entries = ids.map { (deadline: deadline(&random), sequence: $0) }.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
    timers.nextSequence = timerCount
    let start = Measure.threadCPUSeconds()
    for _ in 0..<operations {
        let slot = random.next(below: ids.count)
        timers.cancel(ids[slot])
        ids[slot] = timers.schedule(at: deadline(&random))
    }
    return (Measure.threadCPUSeconds() - start) / Double(operations) * 1e6
}

var heapTimes: [Double] = []
var arrayTimes: [Double] = []
for sample in 0..<samples {
    heapTimes.append(measureHeap(seed: UInt64(sample + 1)))
    arrayTimes.append(measureSortedArray(seed: UInt64(sample + 1)))
}
let heap = Measure.median(heapTimes)
let array = Measure.median(arrayTimes)
print("timers armed: \(timerCount), operations per sample: \(operations) (cancel + re-arm), samples: \(samples)")
print("sorted array (before): \(String(format: "%.3f", array)) us per operation")
print("TimerHeap (after):     \(String(format: "%.3f", heap)) us per operation")
print("before / after:        \(String(format: "%.0f", array / heap))x")
