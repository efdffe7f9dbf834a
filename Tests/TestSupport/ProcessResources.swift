import Foundation
package import RealtimeTime

/// What this test process holds, read from `/proc/self` (Linux), for leak and memory checks.
package enum ProcessResources {
    /// Open file descriptors (`/proc/self/fd` entries, minus the one the listing itself uses).
    package static var openDescriptorCount: Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 0
        return max(0, entries - 1)
    }

    /// Open sockets (descriptors that are `socket:[inode]`): the count leak checks compare,
    /// since the process also opens eventfds and epoll descriptors once, lazily (Dispatch).
    package static var openSocketCount: Int {
        self.descriptorTargets.count { $0.hasPrefix("socket:") }
    }

    /// What each open descriptor is (`socket:[inode]`, `pipe:[inode]`, a path), for messages.
    package static var descriptorTargets: [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }.sorted()
    }

    /// Resident set now (`VmRSS`), in KiB.
    package static var residentKiB: Int { self.statusField("VmRSS") }

    /// Peak resident set since the process started or the last ``resetPeakResident()``
    /// (`VmHWM`), in KiB.
    package static var peakResidentKiB: Int { self.statusField("VmHWM") }

    /// Resets `VmHWM` to the current resident set (writes `5` to `/proc/self/clear_refs`), so
    /// ``peakResidentKiB`` measures the peak of what follows. Returns `false` where the kernel
    /// does not allow it.
    @discardableResult
    package static func resetPeakResident() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        // `write(contentsOf:)` needs iOS 13.4 / macOS 10.15.4; `/proc` is Linux's anyway.
        guard #available(macOS 10.15.4, iOS 13.4, tvOS 13.4, watchOS 6.2, *) else { return false }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func statusField(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits) ?? -1
        }
        return -1
    }

    /// Polls `condition` until it holds or `timeout` passes; returns its last value. For
    /// counts that settle asynchronously (a socket closed by a task that is still finishing).
    package static func eventually(
        timeout: TimeAmount = .seconds(10),
        _ condition: () -> Bool
    ) async -> Bool {
        let deadline = MonotonicInstant.now + timeout
        while MonotonicInstant.now < deadline {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(20))
        }
        return condition()
    }
}
