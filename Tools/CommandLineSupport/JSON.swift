/// A JSON value as the tools read it from the command line and write it to stdout.
///
/// Objects keep their members in order, so a line the tools print has a stable key order
/// (`{"event":...,"args":[...]}`) and what a user typed is echoed as typed. Integers that fit
/// `Int` stay integers; every other number is a `Double`.
///
/// ```swift
/// let value = try JSON.parse(#"{"token": "abc", "retries": 3}"#)
/// print(value.serialized)   // {"token":"abc","retries":3}
/// ```
package enum JSON: Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    /// Members in order; a repeated key is kept as given (JSON allows it, readers take the last).
    case object([Member])

    /// One member of an ``object(_:)``.
    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: JSON

        package init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
    }

    /// The compact serialization (no spaces), as `jq -c` prints.
    package var description: String { self.serialized }

    /// The members of an ``object(_:)``, `nil` otherwise.
    package var members: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

// MARK: - Serialization

extension JSON {
    /// Compact JSON text: no insignificant whitespace, non-ASCII characters as UTF-8,
    /// control characters escaped. A non-finite `Double` (which JSON cannot express) is `null`.
    package var serialized: String {
        var output = ""
        self.write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .int(let value):
            output += String(value)
        case .double(let value):
            output += Self.format(value)
        case .string(let value):
            Self.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    /// Swift's shortest round-tripping form (`1.5`, `1e-07`, `2.0`), which is valid JSON.
    private static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return value.description
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
