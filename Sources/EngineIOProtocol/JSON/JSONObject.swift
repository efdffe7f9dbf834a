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

    /// Stored member (tuples are not `Hashable`); one array keeps one allocation per object.
    private struct Member: Sendable, Hashable {
        var key: String
        var value: JSONValue
    }

    private var members: [Member]

    /// An empty object.
    package init() {
        self.members = []
    }

    /// An object with `members` in the given order.
    package init(_ members: [(String, JSONValue)]) {
        self.members = members.map { Member(key: $0.0, value: $0.1) }
    }

    /// The member names, in order.
    package var keys: [String] { self.members.map(\.key) }

    /// The member values, in the order of ``keys``.
    package var values: [JSONValue] { self.members.map(\.value) }

    package var startIndex: Int { 0 }
    package var endIndex: Int { self.members.count }

    /// The member at `position`.
    package subscript(position: Int) -> Element {
        let member = self.members[position]
        return (member.key, member.value)
    }

    /// The value of the first member named `key`; setting replaces it in place or appends
    /// a new member; setting `nil` removes every member named `key`.
    package subscript(key: String) -> JSONValue? {
        get {
            for member in self.members where member.key == key {
                return member.value
            }
            return nil
        }
        set {
            if let newValue {
                if let index = self.members.firstIndex(where: { $0.key == key }) {
                    self.members[index].value = newValue
                } else {
                    self.append(key: key, value: newValue)
                }
            } else {
                self.members.removeAll { $0.key == key }
            }
        }
    }

    /// Appends a member without looking for an existing one (the parser's path).
    package mutating func append(key: String, value: JSONValue) {
        self.members.append(Member(key: key, value: value))
    }

    /// Reserves room for `count` members.
    package mutating func reserveCapacity(_ count: Int) {
        self.members.reserveCapacity(count)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
