/// Renders `--help`, usage errors and `--version` the way swift-argument-parser tools do:
/// `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:` sections, labels in a column of 24
/// characters after a 2-space indent, help text wrapped at ``width`` columns.
package struct HelpFormatter: Sendable {
    package var command: CommandDescription
    /// The screen width text is wrapped at.
    package var width: Int

    /// Where help text starts (swift-argument-parser's column).
    static let helpColumn = 26
    static let indent = 2

    package init(_ command: CommandDescription, width: Int = 80) {
        self.command = command
        self.width = max(width, 40)
    }

    /// `sio [<options>] <url>`.
    package var usage: String {
        var parts = [self.command.name, "[<options>]"]
        for argument in self.command.arguments {
            parts.append(argument.isOptional ? "[<\(argument.name)>]" : "<\(argument.name)>")
        }
        return parts.joined(separator: " ")
    }

    /// The whole `--help` text, ending with a newline.
    package var help: String {
        var lines: [String] = []
        lines += self.wrap("OVERVIEW: " + self.command.abstract, indent: 0, hangingIndent: 0)
        if !self.command.discussion.isEmpty {
            lines.append("")
            for paragraph in self.command.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                // Leading spaces (an example command) are kept as the paragraph's indent.
                let lead = paragraph.prefix { $0 == " " }.count
                lines +=
                    paragraph.isEmpty ? [""] : self.wrap(String(paragraph.dropFirst(lead)), indent: lead, hangingIndent: lead == 0 ? 0 : lead + 2)
            }
        }
        lines.append("")
        lines.append("USAGE: " + self.usage)
        if !self.command.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for argument in self.command.arguments {
                lines += self.row(label: "<\(argument.name)>", help: argument.help)
            }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for option in self.command.allOptions {
            lines += self.row(label: Self.label(option), help: option.help)
        }
        for section in self.command.sections {
            lines.append("")
            lines.append(section.title.uppercased() + ":")
            for row in section.rows {
                lines += self.row(label: row.label, help: row.help)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a usage error prints on stderr.
    package func usageError(_ error: UsageError) -> String {
        """
        Error: \(error)
        Usage: \(self.usage)
          See '\(self.command.name) --help' for more information.

        """
    }

    /// What `--version` prints.
    package var version: String { "\(self.command.name) \(self.command.version)\n" }

    /// `-H, --header <name: value>`.
    static func label(_ option: OptionDescription) -> String {
        var label = option.names.joined(separator: ", ")
        if let valueName = option.valueName { label += " <\(valueName)>" }
        return label
    }

    // MARK: Layout

    /// A label in the left column and its help wrapped in the right one; a label too wide for
    /// the column puts the help on the next line, as swift-argument-parser does.
    private func row(label: String, help: String) -> [String] {
        let prefix = String(repeating: " ", count: Self.indent) + label
        let helpLines = self.wrap(help, indent: Self.helpColumn, hangingIndent: Self.helpColumn)
        guard let first = helpLines.first else { return [prefix] }
        if prefix.count + 2 <= Self.helpColumn {
            let padded = prefix + String(repeating: " ", count: Self.helpColumn - prefix.count)
            return [padded + first.dropFirst(Self.helpColumn)] + helpLines.dropFirst()
        }
        return [prefix] + helpLines
    }

    /// Words of `text` in lines of at most ``width`` columns; the first line indented by
    /// `indent`, the others by `hangingIndent`. A word longer than a line gets a line of its own.
    private func wrap(_ text: String, indent: Int, hangingIndent: Int) -> [String] {
        var lines: [String] = []
        var current = String(repeating: " ", count: indent)
        var currentIsEmpty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !currentIsEmpty && current.count + 1 + word.count > self.width {
                lines.append(current)
                current = String(repeating: " ", count: hangingIndent)
                currentIsEmpty = true
            }
            current += (currentIsEmpty ? "" : " ") + word
            currentIsEmpty = false
        }
        lines.append(current)
        return lines
    }
}
