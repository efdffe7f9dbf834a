public import Foundation

/// A benchmark result printed as one JSON line (read by the scripts that run the benchmarks).
public protocol JSONLineResult: Encodable {}

extension JSONLineResult {
    /// One JSON object on one line, keys sorted.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
