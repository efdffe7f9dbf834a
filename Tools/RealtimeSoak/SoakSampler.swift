import BenchmarkSupport
import Foundation
import RealtimeSync
import RealtimeTime

/// Counters a soak run updates from any thread and the sampler reads once a second.
final class SoakCounters: Sendable {
    struct Values {
        /// Connections or streams open now.
        var live = 0
        /// Completed operations (acks, events).
        var operations = 0
        /// Failed operations (ack timeouts, stream errors, unexpected closes).
        var failures = 0
        /// Clients that saw the end of a run (the broadcast soak's "ticks_done").
        var done = 0
    }

    private let values = LockedValue(Values())

    func update(_ body: (inout Values) -> Void) {
        self.values.withLock { body(&$0) }
    }

    var snapshot: Values { self.values.withLock { $0 } }
}

/// Writes one CSV row a second while `body` runs, and summarizes the run.
enum SoakSampler {
    /// Samples every second for `seconds` seconds after `start` and returns the rows.
    ///
    /// Each row carries the CPU its own sampling took on the sampler's thread (reading
    /// `/proc/self/status` and listing `/proc/self/fd`, the counters, the CSV text): the soak's
    /// own work, which a run can take out of the client's CPU (``Row/samplerCPUSeconds``).
    static func sample(seconds: Int, counters: SoakCounters, csv path: String) async -> [Row] {
        var rows: [Row] = []
        let start = MonotonicInstant.now
        var text = "seconds,rss_kib,threads,fds,live,operations,failures\n"
        for tick in 0...seconds {
            try? await Task.sleep(until: start.advanced(by: .seconds(tick)))
            // One thread from here to the next suspension: its CPU clock times this row.
            let cpuStart = Measure.threadCPUSeconds()
            let status = ProcessStatus.read()
            let values = counters.snapshot
            var row = Row(
                seconds: Double(tick), residentKiB: status.residentKiB, threads: status.threads,
                descriptors: status.openDescriptors, live: values.live,
                operations: values.operations, failures: values.failures)
            text +=
                "\(tick),\(row.residentKiB),\(row.threads),\(row.descriptors),\(row.live),"
                + "\(row.operations),\(row.failures)\n"
            row.samplerCPUSeconds = Measure.threadCPUSeconds() - cpuStart
            rows.append(row)
        }
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        return rows
    }

    struct Row {
        var seconds: Double
        var residentKiB: Int
        var threads: Int
        var descriptors: Int
        var live: Int
        var operations: Int
        var failures: Int
        /// The sampler's own CPU for this row (its thread's CPU clock around the sampling).
        var samplerCPUSeconds = 0.0
    }

    /// Least-squares slope of resident memory (KiB per minute) over the rows after `warmUp`
    /// seconds, and a one-line summary.
    static func summary(_ rows: [Row], warmUp: Double, baselineKiB: Int, units: Int, what: String) -> String {
        let steady = rows.filter { $0.seconds >= warmUp }
        let n = Double(steady.count)
        let meanX = steady.map(\.seconds).reduce(0, +) / n
        let meanY = steady.map { Double($0.residentKiB) }.reduce(0, +) / n
        let covariance = steady.map { ($0.seconds - meanX) * (Double($0.residentKiB) - meanY) }.reduce(0, +)
        let variance = steady.map { ($0.seconds - meanX) * ($0.seconds - meanX) }.reduce(0, +)
        let slopePerMinute = variance > 0 ? covariance / variance * 60 : 0
        let last = rows.last!
        let perUnit = units > 0 ? Double(Int(meanY) - baselineKiB) / Double(units) : 0
        return String(
            format: "%@: %d live, %d operations, %d failures; RSS after warm-up %.0f KiB (baseline %d), "
                + "slope %.1f KiB/min, %.1f KiB per %@; threads %d, fds %d",
            what, last.live, last.operations, last.failures, meanY, baselineKiB, slopePerMinute,
            perUnit, what == "socketio" ? "client" : (what == "sse" ? "stream" : "connection"),
            last.threads, last.descriptors)
    }
}
