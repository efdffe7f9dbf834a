/// What the command line asks for.
package enum CommandLineRequest: Sendable, Equatable {
    /// Run with these arguments.
    case run(ParsedCommandLine)
    /// `-h` / `--help` was given.
    case help
    /// `--version` was given.
    case version
}

/// The arguments and options of one command line, not yet interpreted.
package struct ParsedCommandLine: Sendable, Equatable {
    /// Positional arguments in order.
    package var arguments: [String] = []
    /// Option values by ``OptionDescription/key``, in the order given.
    package var values: [String: [String]] = [:]
    /// Flags given, by ``OptionDescription/key``.
    package var flags: Set<String> = []
    /// How each option key was spelled on the command line (for error messages).
    package var spellings: [String: String] = [:]

    package init() {}

    /// The last value given for `key`.
    package func value(_ key: String) -> String? { self.values[key]?.last }

    /// Every value given for `key`.
    package func allValues(_ key: String) -> [String] { self.values[key] ?? [] }

    /// Whether the flag `key` was given.
    package func flag(_ key: String) -> Bool { self.flags.contains(key) }

    /// Whether the option `key` (flag or value) was given.
    package func contains(_ key: String) -> Bool { self.flags.contains(key) || self.values[key] != nil }

    /// How `key` was written (`-H` or `--header`), or `key` itself.
    package func spelling(_ key: String) -> String { self.spellings[key] ?? key }
}

/// Reads `[String]` (without the executable name) against a ``CommandDescription``.
///
/// The conventions of swift-argument-parser and curl:
/// - `--name value` and `--name=value`; `-X value` and `-Xvalue` for short options;
/// - an option's value is the next argument whatever it looks like (`--data -1`);
/// - `--` ends the options; a lone `-` is a positional argument;
/// - a repeatable option keeps each value; another one keeps the last;
/// - `-h`/`--help` or `--version` anywhere before `--` wins over everything else.
///
/// No I/O: the result is a value or a ``UsageError``.
package enum CommandLineParser {
    package static func parse(_ arguments: [String], for command: CommandDescription) throws(UsageError) -> CommandLineRequest {
        let optionsPart = arguments.prefix { $0 != "--" }
        if optionsPart.contains(where: { OptionDescription.help.names.contains($0) }) { return .help }
        if optionsPart.contains(where: { OptionDescription.version.names.contains($0) }) { return .version }

        var parsed = ParsedCommandLine()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.arguments.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let name: String
            var attachedValue: String?
            if argument.hasPrefix("--") {
                if let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    attachedValue = String(argument[argument.index(after: equals)...])
                } else {
                    name = argument
                }
            } else if argument.count > 2 {
                // `-XPOST`: a short option with its value attached.
                name = String(argument.prefix(2))
                attachedValue = String(argument.dropFirst(2))
                guard let option = command.option(named: name), option.takesValue else {
                    throw .unknownOption(argument)
                }
            } else {
                name = argument
            }
            guard let option = command.option(named: name) else { throw .unknownOption(name) }
            parsed.spellings[option.key] = name
            guard option.takesValue else {
                if attachedValue != nil { throw .unexpectedValue(option: name) }
                parsed.flags.insert(option.key)
                continue
            }
            let value: String
            if let attachedValue {
                value = attachedValue
            } else {
                guard index < arguments.count else { throw .missingValue(option: name) }
                value = arguments[index]
                index += 1
            }
            if option.isRepeatable {
                parsed.values[option.key, default: []].append(value)
            } else {
                parsed.values[option.key] = [value]
            }
        }

        let required = command.arguments.filter { !$0.isOptional }
        if parsed.arguments.count < required.count {
            throw .missingArgument(required[parsed.arguments.count].name)
        }
        if parsed.arguments.count > command.arguments.count {
            throw .unexpectedArgument(parsed.arguments[command.arguments.count])
        }
        return .run(parsed)
    }
}
