/// One `-H 'Name: value'` argument, as curl reads it.
package struct HeaderField: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Reads `Name: value` (spaces around the value trimmed; the value may be empty).
    ///
    /// - Throws: ``UsageError/invalidValue(option:value:reason:)`` without a colon, with an
    ///   empty name, or with a name that is not an HTTP token (RFC 9110 §5.1), or with a line
    ///   break in the value (it would start another header).
    package init(parsing text: String, option: String) throws(UsageError) {
        guard let colon = text.firstIndex(of: ":") else {
            throw .invalidValue(option: option, value: text, reason: "expected 'Name: value'")
        }
        let name = String(text[..<colon])
        let value = String(text[text.index(after: colon)...]).trimmingSpacesAndTabs()
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenCharacter) else {
            throw .invalidValue(option: option, value: text, reason: "the header name must be an HTTP token")
        }
        guard !value.contains("\r"), !value.contains("\n") else {
            throw .invalidValue(option: option, value: text, reason: "the header value contains a line break")
        }
        self.init(name: name, value: value)
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
        default: return false
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpacesAndTabs() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = self.firstIndex(where: { !isBlank($0) }),
            let last = self.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(self[first...last])
    }
}
