package import EngineIOProtocol

/// Typed readings of option values, failing with ``UsageError/invalidValue(option:value:reason:)``.
extension ParsedCommandLine {
    /// The last value of `key` as a finite number of seconds `> 0`, or `nil` when not given.
    package func seconds(_ key: String) throws(UsageError) -> Double? {
        guard let text = self.value(key) else { return nil }
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw .invalidValue(option: self.spelling(key), value: text, reason: "expected a number of seconds > 0")
        }
        return value
    }

    /// The last value of `key` as an integer `>= 1`, or `nil` when not given.
    package func positiveInteger(_ key: String) throws(UsageError) -> Int? {
        guard let text = self.value(key) else { return nil }
        guard let value = Int(text), value >= 1 else {
            throw .invalidValue(option: self.spelling(key), value: text, reason: "expected an integer >= 1")
        }
        return value
    }

    /// The last value of `key` parsed as one JSON value, or `nil` when not given.
    package func json(_ key: String) throws(UsageError) -> JSONValue? {
        guard let text = self.value(key) else { return nil }
        return try Self.json(text, option: self.spelling(key))
    }

    /// Every value of `key`, each parsed as one JSON value.
    package func allJSON(_ key: String) throws(UsageError) -> [JSONValue] {
        var values: [JSONValue] = []
        for text in self.allValues(key) {
            values.append(try Self.json(text, option: self.spelling(key)))
        }
        return values
    }

    /// Every value of `key` read as `Name: value`.
    package func headers(_ key: String) throws(UsageError) -> [HeaderField] {
        var fields: [HeaderField] = []
        for text in self.allValues(key) {
            fields.append(try HeaderField(parsing: text, option: self.spelling(key)))
        }
        return fields
    }

    private static func json(_ text: String, option: String) throws(UsageError) -> JSONValue {
        do {
            return try JSONValue(commandLineArgument: text)
        } catch {
            let hint = text.first == "\"" || text.first == "{" || text.first == "[" ? "" : #" (quote a string: '"text"')"#
            throw .invalidValue(option: option, value: text, reason: "\(error.commandLineDescription)\(hint)")
        }
    }
}
