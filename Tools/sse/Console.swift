import Foundation

/// stdout for results, stderr for progress and errors, each write one `write(2)`, so lines
/// from different threads never interleave within a line.
struct Console: Sendable {
    /// The tool's name, the prefix of stderr lines.
    let name: String
    /// `--silent`: no progress lines.
    let silent: Bool

    /// A result line (already ending with a newline) on stdout.
    func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Progress on stderr, unless silent.
    func progress(_ message: String) {
        guard !self.silent else { return }
        self.error(message)
    }

    /// An error on stderr, always.
    func error(_ message: String) {
        FileHandle.standardError.write(Data("\(self.name): \(message)\n".utf8))
    }

    /// Text as it is on stderr (usage errors).
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Text as it is on stdout (help, version).
    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
