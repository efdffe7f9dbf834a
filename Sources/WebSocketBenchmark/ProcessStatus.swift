import Foundation

/// Fields of `/proc/self/status` (Linux).
struct ProcessStatus {
    var residentKiB = 0
    var threads = 0

    static func read() -> ProcessStatus {
        var status = ProcessStatus()
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return status }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = Int(parts[1].split(separator: " ").first ?? "") ?? 0
            switch parts[0] {
            case "VmRSS": status.residentKiB = value
            case "Threads": status.threads = value
            default: break
            }
        }
        return status
    }
}
