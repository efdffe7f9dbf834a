/// A command line the tool cannot run: exit status 1, the message and a usage hint on stderr.
package enum UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case missingValue(option: String)
    /// A flag was given a value (`--insecure=yes`).
    case unexpectedValue(option: String)
    case missingArgument(String)
    case unexpectedArgument(String)
    case invalidValue(option: String, value: String, reason: String)
    /// Two options that cannot go together.
    case conflictingOptions(String, String)
    /// `option` needs `requirement` (`--data` needs `--emit`).
    case requires(option: String, requirement: String)

    /// swift-argument-parser's wording.
    package var description: String {
        switch self {
        case .unknownOption(let name):
            return "Unknown option '\(name)'"
        case .missingValue(let option):
            return "Missing value for '\(option)'"
        case .unexpectedValue(let option):
            return "The option '\(option)' does not take a value"
        case .missingArgument(let name):
            return "Missing expected argument '<\(name)>'"
        case .unexpectedArgument(let argument):
            return "Unexpected argument '\(argument)'"
        case .invalidValue(let option, let value, let reason):
            return "The value '\(value)' is invalid for '\(option)': \(reason)"
        case .conflictingOptions(let first, let second):
            return "'\(first)' cannot be used with '\(second)'"
        case .requires(let option, let requirement):
            return "'\(option)' requires '\(requirement)'"
        }
    }
}
