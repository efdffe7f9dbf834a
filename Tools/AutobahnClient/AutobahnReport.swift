import Foundation

/// Reads kosoku's `index.json` (`{agent: {case id: {behavior, behaviorClose, ...}}}`) and
/// prints counts by behavior for each section.
enum AutobahnReport {
    static let behaviors = ["OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED"]

    static func summarize(path: String, agent: String, requiredSections: Set<Int>) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            say("cannot read \(path)")
            return 1
        }
        guard let cases = (root[agent] ?? root.values.first) as? [String: Any] else {
            say("no results for agent \(agent) in \(path)")
            return 1
        }
        var counts: [Int: [String: Int]] = [:]
        var failures: [String] = []
        for (identifier, value) in cases {
            guard let result = value as? [String: Any] else { continue }
            let section = Int(identifier.split(separator: ".").first ?? "") ?? 0
            let behavior = (result["behavior"] as? String) ?? "?"
            let closeBehavior = (result["behaviorClose"] as? String) ?? "OK"
            let effective = closeBehavior == "FAILED" ? "FAILED" : behavior
            counts[section, default: [:]][effective, default: 0] += 1
            if effective == "FAILED" || effective == "?" {
                failures.append(identifier)
            }
        }
        let header =
            "section"
            + behaviors.map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }
            .reduce("   ") { $0 + $1 }
        say(header)
        var total: [String: Int] = [:]
        for section in counts.keys.sorted() {
            var line = String(section).padding(toLength: 10, withPad: " ", startingAt: 0)
            for behavior in behaviors {
                let count = counts[section]?[behavior] ?? 0
                total[behavior, default: 0] += count
                line += String(count).padding(toLength: 14, withPad: " ", startingAt: 0)
            }
            say(line)
        }
        var line = "total".padding(toLength: 10, withPad: " ", startingAt: 0)
        for behavior in behaviors {
            line += String(total[behavior] ?? 0).padding(toLength: 14, withPad: " ", startingAt: 0)
        }
        say(line)
        let sortedFailures = failures.sorted { self.caseOrder($0).lexicographicallyPrecedes(self.caseOrder($1)) }
        if !sortedFailures.isEmpty { say("FAILED: \(sortedFailures.joined(separator: " "))") }
        let blocking = sortedFailures.filter {
            requiredSections.contains(Int($0.split(separator: ".").first ?? "") ?? 0)
        }
        if !blocking.isEmpty {
            say("required sections have failures: \(blocking.joined(separator: " "))")
            return 1
        }
        return 0
    }

    private static func caseOrder(_ identifier: String) -> [Int] {
        identifier.split(separator: ".").map { Int($0) ?? 0 }
    }
}
