import Foundation
import RealtimeHTTP

/// Command-line entry: `run` drives the cases, `summarize` reads the report.
enum AutobahnCommand {
    static func main(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first, arguments.count >= 2 else {
            say("usage: AutobahnClient run <ws://host:port> [--agent A] [--compression] [--cases LIST]")
            say("       AutobahnClient summarize <index.json> [--agent A] [--require SECTIONS]")
            return 2
        }
        let agent = self.option("--agent", in: arguments) ?? "swift-realtime"
        switch command {
        case "run":
            guard let base = URL(string: arguments[1]) else { return 2 }
            let runner = AutobahnRunner(
                base: base, agent: agent,
                compression: arguments.contains("--compression"))
            let cases = self.option("--cases", in: arguments).map(self.parseRanges)
            return await runner.runAll(only: cases)
        case "summarize":
            let required = self.parseRanges(self.option("--require", in: arguments) ?? "1-10")
            return AutobahnReport.summarize(path: arguments[1], agent: agent, requiredSections: Set(required))
        default:
            return 2
        }
    }

    static func option(_ name: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// "1,3-5" → [1, 3, 4, 5].
    static func parseRanges(_ text: String) -> [Int] {
        text.split(separator: ",").flatMap { part -> [Int] in
            let bounds = part.split(separator: "-").compactMap { Int($0) }
            if bounds.count == 2, bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
            return bounds.count == 1 ? bounds : []
        }
    }
}

/// Writes a line to stdout right away (progress must show while the run goes on).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
