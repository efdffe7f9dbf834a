import Foundation

/// stdout for results, stderr for progress and errors, each write one `write(2)`, so lines
/// from different threads never interleave within a line. The one piece of I/O the tools
/// share; everything else in this target is sans-I/O.
package struct Console: Sendable {
    /// The tool's name, the prefix of stderr lines.
    package let name: String
    /// `--silent`: no progress lines.
    package let silent: Bool

    /// A result line (already ending with a newline) on stdout.
    package func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Progress on stderr, unless silent.
    package func progress(_ message: String) {
        guard !self.silent else { return }
        self.error(message)
    }

    /// An error on stderr, always.
    package func error(_ message: String) {
        FileHandle.standardError.write(Data("\(self.name): \(message)\n".utf8))
    }

    /// Text as it is on stderr (usage errors).
    package static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Text as it is on stdout (help, version).
    package static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// The options of this process's command line. `--help` and `--version` are printed (exit
    /// 0) and a usage error too (exit `usageStatus`), as both tools do.
    package static func options<Options: ToolOptions>(_: Options.Type, usageStatus: Int32) -> Options {
        let formatter = HelpFormatter(Options.command)
        let request: ToolRequest<Options>
        do throws(UsageError) {
            request = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            Self.standardError(formatter.usageError(error))
            exit(usageStatus)
        }
        switch request {
        case .help:
            Self.standardOutput(formatter.help)
            exit(0)
        case .version:
            Self.standardOutput(formatter.version)
            exit(0)
        case .run(let options):
            return options
        }
    }

    package init(name: String, silent: Bool) {
        self.name = name
        self.silent = silent
    }
}

/// A flag set once (the first connection, a timeout), read from other threads.
package final class SetOnceFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false

    package init() {}

    package func set() {
        self.lock.lock()
        self.value = true
        self.lock.unlock()
    }

    package var isSet: Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.value
    }
}
