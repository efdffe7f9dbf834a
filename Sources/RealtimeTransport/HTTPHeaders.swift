/// An ordered list of HTTP header fields with case-insensitive lookup (RFC 9110 §5).
///
/// Order and repeated fields are preserved, as they matter for `Set-Cookie`.
package struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (name: String, value: String)

    private var storage: [HeaderField] = []

    fileprivate struct HeaderField: Sendable, Hashable {
        var name: String
        var value: String
    }

    package init() {}

    package init(_ fields: [(String, String)]) {
        self.storage = fields.map { HeaderField(name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    package var count: Int { self.storage.count }
    package var isEmpty: Bool { self.storage.isEmpty }

    /// Appends a field, keeping any existing field of the same name.
    package mutating func add(name: String, value: String) {
        // Room for a typical request's or response's fields at once, instead of growing
        // through 1, 2, 4 and 8 as they are added.
        if self.storage.isEmpty { self.storage.reserveCapacity(Self.typicalFieldCount) }
        self.storage.append(HeaderField(name: name, value: value))
    }

    private static let typicalFieldCount = 12

    /// Replaces every field named `name` with one field.
    package mutating func replaceOrAdd(name: String, value: String) {
        self.remove(name: name)
        self.add(name: name, value: value)
    }

    package mutating func remove(name: String) {
        self.storage.removeAll { Self.namesEqual($0.name, name) }
    }

    /// The first value of `name`, or `nil`.
    package func first(name: String) -> String? {
        self.storage.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    package func values(name: String) -> [String] {
        // One loop and one array (none when absent), not a filtered array and its map.
        var values: [String] = []
        for field in self.storage where Self.namesEqual(field.name, name) { values.append(field.value) }
        return values
    }

    package func contains(name: String) -> Bool {
        self.storage.contains { Self.namesEqual($0.name, name) }
    }

    package subscript(name: String) -> [String] { self.values(name: name) }

    /// A concrete iterator: an opaque one made every loop over the fields look up its type
    /// metadata at run time (cross-module), once per request.
    package struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[HeaderField]>

        package mutating func next() -> Element? {
            guard let field = self.base.next() else { return nil }
            return (name: field.name, value: field.value)
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(base: self.storage.makeIterator())
    }

    /// Field names compare case-insensitively. Names are tokens (ASCII), so ASCII letters
    /// are folded byte by byte, without making lowercased copies.
    package static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // A native string's bytes compared in place (a request compares dozens of names: its
        // writer and parser ask for their framing fields); a bridged one's through its view.
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                zip(left, right).allSatisfy(Self.equalIgnoringASCIICase)
            }
        }
        if let compared = compared ?? nil { return compared }
        return zip(lhs.utf8, rhs.utf8).allSatisfy(Self.equalIgnoringASCIICase)
    }

    /// Two bytes of field names: equal, or the same ASCII letter in either case.
    private static func equalIgnoringASCIICase(_ left: UInt8, _ right: UInt8) -> Bool {
        left == right || Self.asciiLowercased(left) == Self.asciiLowercased(right)
    }

    /// `byte` with an ASCII capital letter folded to its lowercase form.
    package static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
