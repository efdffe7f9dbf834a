/// The members of a JSON object, in the order they were parsed or added.
///
/// RFC 8259 section 4 leaves member order and duplicate names to implementations; Socket.IO
/// payloads are produced by `JSON.stringify` (JavaScript) or `json.dumps` (Python), which both
/// keep insertion order. This type keeps that order, so re-serializing a payload yields the
/// same text. Lookups by key are linear, which is the fast choice for the handful of keys a
/// typical event payload has. Parsing keeps duplicate names as they appear; ``subscript(_:)``
/// returns the first.
///
/// Two objects are equal when they have the same members in the same order.
package struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// One member: a key and its value.
    package typealias Element = (key: String, value: JSONValue)

    /// The member names, in order.
    package private(set) var keys: [String]
    /// The member values, in the order of ``keys``.
    package private(set) var values: [JSONValue]

    /// An empty object.
    package init() {
        self.keys = []
        self.values = []
    }

    /// An object with `members` in the given order.
    package init(_ members: [(String, JSONValue)]) {
        self.keys = []
        self.values = []
        self.keys.reserveCapacity(members.count)
        self.values.reserveCapacity(members.count)
        for (key, value) in members {
            self.keys.append(key)
            self.values.append(value)
        }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { self.keys.count }

    /// The member at `position`.
    package subscript(position: Int) -> Element {
        (self.keys[position], self.values[position])
    }

    /// The value of the first member named `key`; setting replaces it in place or appends
    /// a new member; setting `nil` removes every member named `key`.
    package subscript(key: String) -> JSONValue? {
        get {
            guard let index = self.keys.firstIndex(of: key) else { return nil }
            return self.values[index]
        }
        set {
            if let newValue {
                if let index = self.keys.firstIndex(of: key) {
                    self.values[index] = newValue
                } else {
                    self.append(key: key, value: newValue)
                }
            } else {
                while let index = self.keys.firstIndex(of: key) {
                    self.keys.remove(at: index)
                    self.values.remove(at: index)
                }
            }
        }
    }

    /// Appends a member without looking for an existing one (the parser's path).
    package mutating func append(key: String, value: JSONValue) {
        self.keys.append(key)
        self.values.append(value)
    }

    /// Reserves room for `count` members.
    package mutating func reserveCapacity(_ count: Int) {
        self.keys.reserveCapacity(count)
        self.values.reserveCapacity(count)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
