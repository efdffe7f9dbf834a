#if canImport(Glibc)
import Glibc
#endif

/// Fields of `/proc/self/status` (Linux).
struct ProcessStatus {
    var residentKiB = 0
    var threads = 0

    /// Reads the file with plain `read(2)`: procfs reports a size of 0, which defeats
    /// readers that trust `stat`.
    static func read() -> ProcessStatus {
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
            case "Threads": status.threads = value
            default: break
            }
        }
        #endif
        return status
    }
}
