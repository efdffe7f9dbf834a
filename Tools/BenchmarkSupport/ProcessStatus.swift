#if canImport(Glibc)
import Glibc
#endif

/// What `/proc/self` says about this process (Linux; zeros elsewhere).
package struct ProcessStatus: Sendable {
    /// Resident set size now (`VmRSS`).
    package var residentKiB = 0
    /// The largest resident set size so far (`VmHWM`).
    package var peakResidentKiB = 0
    package var threads = 0
    /// Open file descriptors (entries of `/proc/self/fd`).
    package var openDescriptors = 0

    /// Reads `/proc/self/status` with plain `read(2)` (procfs reports a size of 0, which
    /// defeats readers that trust `stat`) and counts `/proc/self/fd`.
    package static func read() -> ProcessStatus {
        var status = ProcessStatus()
        #if canImport(Glibc)
        let descriptor = open("/proc/self/status", O_RDONLY)
        guard descriptor >= 0 else { return status }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = Int(parts[1].drop { !$0.isNumber }.prefix { $0.isNumber }) ?? 0
            switch parts[0] {
            case "VmRSS": status.residentKiB = value
            case "VmHWM": status.peakResidentKiB = value
            case "Threads": status.threads = value
            default: break
            }
        }
        if let directory = opendir("/proc/self/fd") {
            var entries = 0
            while let entry = readdir(directory) {
                if entry.pointee.d_name.0 != 0x2E { entries += 1 }  // skip "." and ".."
            }
            closedir(directory)
            status.openDescriptors = entries - 1  // the directory stream's own descriptor
        }
        #endif
        return status
    }
}
