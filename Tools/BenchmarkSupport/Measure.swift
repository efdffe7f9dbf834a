package import RealtimeTime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measurement helpers of the benchmark executables (WebSocket, SSE, Socket.IO).
package enum Measure {
    /// CPU seconds (user + system) used so far by this whole process, every thread included.
    package static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Context switches (voluntary + involuntary) of this whole process so far.
    package static func processContextSwitches() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Int(usage.ru_nvcsw) + Int(usage.ru_nivcsw)
    }

    /// CPU seconds of the calling thread (on a loaded machine, wall time includes waiting).
    package static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `duration` in seconds.
    package static func seconds(_ duration: TimeAmount) -> Double {
        duration.seconds
    }

    /// A monotonic clock reading in nanoseconds.
    package static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The nearest-rank percentile of `sorted` (ascending); the Python client uses the same definition.
    package static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// The median of `values` (mean of the middle two for an even count).
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Heap allocations and mutex acquisitions of this process so far, when the benchmark runs
    /// under `LD_PRELOAD` of `scripts/call-counters.sh`'s object (Linux); `nil` otherwise.
    package static func callCounters() -> (allocations: Int, locks: Int)? {
        #if canImport(Glibc)
        let process = dlopen(nil, RTLD_NOW)
        guard let allocations = dlsym(process, "realtime_counter_allocations"),
            let locks = dlsym(process, "realtime_counter_locks")
        else { return nil }
        typealias Reader = @convention(c) () -> UInt
        return (
            Int(unsafeBitCast(allocations, to: Reader.self)()),
            Int(unsafeBitCast(locks, to: Reader.self)())
        )
        #else
        return nil
        #endif
    }
}
