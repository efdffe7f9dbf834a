/// What a command accepts: its positional arguments and options, with the text `--help` shows.
///
/// A value, so the parser and the help formatter are pure functions of it and of the
/// arguments (see ``CommandLineParser`` and ``HelpFormatter``). `-h`/`--help` and `--version`
/// are added to every command.
package struct CommandDescription: Sendable {
    /// The executable's name (`sio`).
    package var name: String
    /// What `--version` prints after the name.
    package var version: String
    /// The one-line summary shown as `OVERVIEW:`.
    package var abstract: String
    /// Paragraphs shown after the overview.
    package var discussion: String
    package var arguments: [ArgumentDescription]
    package var options: [OptionDescription]
    /// More two-column sections after `OPTIONS:` (for example `EXIT STATUS:`).
    package var sections: [HelpSection]

    package init(
        name: String, version: String, abstract: String, discussion: String = "",
        arguments: [ArgumentDescription], options: [OptionDescription], sections: [HelpSection] = []
    ) {
        self.name = name
        self.version = version
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.sections = sections
    }

    /// The option named `name` (`-H`, `--header`), the built-in ones included.
    func option(named name: String) -> OptionDescription? {
        self.allOptions.first { $0.names.contains(name) }
    }

    /// The command's options followed by `--version` and `-h, --help`.
    var allOptions: [OptionDescription] {
        self.options + [OptionDescription.version, OptionDescription.help]
    }
}

/// A positional argument (`<url>`).
package struct ArgumentDescription: Sendable {
    /// Shown as `<name>`.
    package var name: String
    package var help: String
    package var isOptional: Bool

    package init(_ name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }
}

/// An option: a flag (`--insecure`) or one that takes a value (`-H, --header <name: value>`).
package struct OptionDescription: Sendable {
    /// Every spelling, short ones first (`["-H", "--header"]`).
    package var names: [String]
    /// The value's placeholder, shown as `<valueName>`; `nil` for a flag.
    package var valueName: String?
    package var help: String
    /// May be given several times, each value kept (otherwise the last one wins).
    package var isRepeatable: Bool

    package init(_ names: [String], value valueName: String? = nil, help: String, repeatable: Bool = false) {
        precondition(!names.isEmpty, "an option needs a name")
        self.names = names
        self.valueName = valueName
        self.help = help
        self.isRepeatable = repeatable
    }

    /// The name values are recorded under: the last (long) spelling.
    package var key: String { self.names[self.names.count - 1] }

    var takesValue: Bool { self.valueName != nil }

    static let help = OptionDescription(["-h", "--help"], help: "Show help information.")
    static let version = OptionDescription(["--version"], help: "Show the version.")
}

/// A two-column section of the help (`EXIT STATUS:` with `0  ...`).
package struct HelpSection: Sendable {
    package var title: String
    package var rows: [(label: String, help: String)]

    package init(title: String, rows: [(label: String, help: String)]) {
        self.title = title
        self.rows = rows
    }
}
