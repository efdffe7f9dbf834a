import Foundation

/// The peak resident memory one piece of work adds to this process (Linux `VmHWM`, reset
/// through `/proc/self/clear_refs` first), for the bounded-memory checks of hostile servers.
package struct PeakMemory: Sendable, CustomStringConvertible {
    /// Resident KiB just before the work.
    package var beforeKiB: Int
    /// Peak resident KiB during the work.
    package var peakKiB: Int

    /// How far the peak rose above the start, in KiB.
    package var growthKiB: Int { max(0, self.peakKiB - self.beforeKiB) }

    package var description: String {
        "peak +\(self.growthKiB / 1024) MiB (\(self.beforeKiB / 1024) -> \(self.peakKiB / 1024) MiB resident)"
    }

    /// Runs `work` and reports the peak it reached; prints `[memory] <label>: ...` so the
    /// figure shows in the test log.
    package static func measure<T>(_ label: String, _ work: () async throws -> T) async rethrows -> (T, PeakMemory) {
        ProcessResources.resetPeakResident()
        let before = ProcessResources.residentKiB
        let value = try await work()
        let peak = PeakMemory(beforeKiB: before, peakKiB: ProcessResources.peakResidentKiB)
        print("[memory] \(label): \(peak)")
        return (value, peak)
    }
}
