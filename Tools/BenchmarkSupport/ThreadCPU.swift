#if canImport(Glibc)
import Glibc
#endif

/// CPU time of the process's threads by name, from `/proc/self/task/*/comm` and `stat`: how
/// the scale runs tell what each event loop's thread spent (RealtimeIO names them
/// `RTIO-<group>-<loop>`).
package enum ThreadCPU {
    /// Seconds of user and system CPU each live thread whose name starts with `prefix` has
    /// used, by name (threads of one name summed); empty where `/proc` is missing.
    package static func seconds(namePrefix prefix: String) -> [String: Double] {
        var result: [String: Double] = [:]
        #if canImport(Glibc)
        guard let directory = opendir("/proc/self/task") else { return result }
        defer { closedir(directory) }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        while let entry = readdir(directory) {
            let id = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Int(id) != nil else { continue }
            let name = Self.contents(of: "/proc/self/task/\(id)/comm").split(separator: "\n").first.map(String.init) ?? ""
            guard name.hasPrefix(prefix) else { continue }
            // `stat`: the fields after the parenthesised name; utime and stime are the 14th and
            // 15th of the whole line (the 12th and 13th after it).
            let stat = Self.contents(of: "/proc/self/task/\(id)/stat")
            guard let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            result[name, default: 0] += (user + system) / ticksPerSecond
        }
        #endif
        return result
    }

    /// The difference of two readings, by name (a thread that started between them counts from 0).
    package static func delta(from start: [String: Double], to end: [String: Double]) -> [String: Double] {
        end.reduce(into: [:]) { result, entry in result[entry.key] = entry.value - (start[entry.key] ?? 0) }
    }

    private static func contents(of path: String) -> String {
        #if canImport(Glibc)
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: 1024)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: chunk[0..<count], as: UTF8.self) : ""
        #else
        return ""
        #endif
    }
}
