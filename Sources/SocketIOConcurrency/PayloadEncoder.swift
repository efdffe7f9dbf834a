import Foundation
public import SocketIO

extension SocketIOClient {
    /// Encodes `Encodable` values into ``SocketIO/SocketIOClient/Payload``, the way `JSONEncoder`
    /// would shape them as JSON, except that `Data` stays binary.
    ///
    /// ```swift
    /// struct Message: Codable { var text: String; var image: Data }
    /// let payload = try SocketIOClient.PayloadEncoder().encode(Message(text: "hi", image: png))
    /// // .object(["text": .string("hi"), "image": .data(png)]): the image travels as a binary
    /// // attachment, not as base64 text
    /// ```
    ///
    /// Mapping: `String`, `Bool` and `nil` as themselves; integers as ``SocketIO/SocketIOClient/Payload/int(_:)``
    /// (a `UInt`/`UInt64` above `Int.max` as a ``SocketIO/SocketIOClient/Payload/double(_:)``, as
    /// JavaScript would read it); `Float`/`Double` as ``SocketIO/SocketIOClient/Payload/double(_:)``
    /// (non-finite values are an error: JSON cannot carry them); `Data` as ``SocketIO/SocketIOClient/Payload/data(_:)``;
    /// `URL` as its absolute string and `Decimal` as a number, as `JSONEncoder` does; `Date`
    /// through its own `Encodable` conformance (seconds since 2001-01-01, `JSONEncoder`'s default
    /// `.deferredToDate`). Keyed containers become objects, unkeyed ones arrays.
    public struct PayloadEncoder: Sendable {
        /// Contextual information for the values' `encode(to:)`.
        public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

        /// An encoder with no user info.
        public init() {}

        /// Encodes `value`.
        ///
        /// - Throws: `EncodingError.invalidValue` for a non-finite number or a value that encodes
        ///   nothing, or what the value's own `encode(to:)` throws.
        public func encode<Value: Encodable>(_ value: Value) throws -> SocketIOClient.Payload {
            let root = PayloadEncodingNode()
            let encoder = PayloadEncodingContext(node: root, codingPath: [], userInfo: self.userInfo)
            try encoder.encodeValue(value)
            guard let payload = root.payload() else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: [], debugDescription: "\(Value.self) encoded no value"))
            }
            return payload
        }
    }
}

// MARK: - The tree being built

/// One value under construction: containers are reference nodes so that nested encoders can
/// keep adding to them after they were handed out (the `Encoder` protocol's shape).
final class PayloadEncodingNode {
    enum Content {
        case empty
        case value(SocketIOClient.Payload)
        case array([PayloadEncodingNode])
        case object([String: PayloadEncodingNode])
    }

    var content: Content = .empty

    /// The finished value; `nil` when nothing was encoded into this node.
    func payload() -> SocketIOClient.Payload? {
        switch self.content {
        case .empty: return nil
        case .value(let payload): return payload
        case .array(let elements): return .array(elements.map { $0.payload() ?? .null })
        case .object(let members):
            var object: [String: SocketIOClient.Payload] = [:]
            object.reserveCapacity(members.count)
            for (key, node) in members {
                object[key] = node.payload() ?? .null
            }
            return .object(object)
        }
    }

    /// This node as an object, becoming one if it is still empty.
    func member(_ key: String) -> PayloadEncodingNode {
        var members: [String: PayloadEncodingNode]
        if case .object(let existing) = self.content { members = existing } else { members = [:] }
        if let node = members[key] { return node }
        let node = PayloadEncodingNode()
        members[key] = node
        self.content = .object(members)
        return node
    }

    /// Appends a fresh element to this node as an array (becoming one if it is still empty).
    func appendElement() -> PayloadEncodingNode {
        var elements: [PayloadEncodingNode]
        if case .array(let existing) = self.content { elements = existing } else { elements = [] }
        let node = PayloadEncodingNode()
        elements.append(node)
        self.content = .array(elements)
        return node
    }

    var elementCount: Int {
        if case .array(let elements) = self.content { return elements.count }
        return 0
    }
}

// MARK: - Encoder

/// The `Encoder` handed to each value: where it writes (its node) and its coding path.
struct PayloadEncodingContext: Encoder {
    let node: PayloadEncodingNode
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]

    init(node: PayloadEncodingNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { self.sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = self.node.content { self.node.content = .object([:]) }
        return KeyedEncodingContainer(PayloadKeyedEncodingContainer<Key>(context: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = self.node.content { self.node.content = .array([]) }
        return PayloadUnkeyedEncodingContainer(context: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        PayloadSingleValueEncodingContainer(context: self)
    }

    /// An encoder for a child node at `key`.
    func child(_ node: PayloadEncodingNode, key: any CodingKey) -> PayloadEncodingContext {
        PayloadEncodingContext(node: node, codingPath: self.codingPath + [key], userInfo: self.sendableUserInfo)
    }

    /// Encodes `value` into this context's node, with the special cases of the type's
    /// discussion (`Data`, `URL`, `Decimal`, numbers).
    func encodeValue<Value: Encodable>(_ value: Value) throws {
        switch value {
        case let data as Data:
            self.node.content = .value(.data(data))
        case let url as URL:
            self.node.content = .value(.string(url.absoluteString))
        case let decimal as Decimal:
            try self.encodeDouble(NSDecimalNumber(decimal: decimal).doubleValue, original: value)
        case let payload as SocketIOClient.Payload:
            self.node.content = .value(payload)
        default:
            try value.encode(to: self)
        }
    }

    func encodeDouble(_ number: Double, original: Any) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                original,
                EncodingError.Context(codingPath: self.codingPath, debugDescription: "\(number) is not a JSON number"))
        }
        self.node.content = .value(.double(number))
    }

    func encodeInteger<Integer: BinaryInteger>(_ number: Integer) {
        if let int = Int(exactly: number) {
            self.node.content = .value(.int(int))
        } else {
            self.node.content = .value(.double(Double(number)))
        }
    }
}

/// The index of an unkeyed container's element, as a coding key.
struct PayloadIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(self.intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}

// MARK: - Containers

struct PayloadKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let context: PayloadEncodingContext
    var codingPath: [any CodingKey] { self.context.codingPath }

    private func child(_ key: Key) -> PayloadEncodingContext {
        self.context.child(self.context.node.member(key.stringValue), key: key)
    }

    mutating func encodeNil(forKey key: Key) throws { self.child(key).node.content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { self.child(key).node.content = .value(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { self.child(key).node.content = .value(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try self.child(key).encodeDouble(value, original: value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try self.child(key).encodeDouble(Double(value), original: value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { self.child(key).encodeInteger(value) }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws { try self.child(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        self.child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        self.child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        self.context.child(self.context.node.member("super"), key: PayloadStringKey("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { self.child(key) }
}

/// A coding key made from a string (`super`).
struct PayloadStringKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

struct PayloadUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let context: PayloadEncodingContext
    var codingPath: [any CodingKey] { self.context.codingPath }
    var count: Int { self.context.node.elementCount }

    private func next() -> PayloadEncodingContext {
        let index = self.context.node.elementCount
        return self.context.child(self.context.node.appendElement(), key: PayloadIndexKey(intValue: index))
    }

    mutating func encodeNil() throws { self.next().node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { self.next().node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { self.next().node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { try self.next().encodeDouble(value, original: value) }
    mutating func encode(_ value: Float) throws { try self.next().encodeDouble(Double(value), original: value) }
    mutating func encode(_ value: Int) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: Int8) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: Int16) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: Int32) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: Int64) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: UInt) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: UInt8) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: UInt16) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: UInt32) throws { self.next().encodeInteger(value) }
    mutating func encode(_ value: UInt64) throws { self.next().encodeInteger(value) }
    mutating func encode<Value: Encodable>(_ value: Value) throws { try self.next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        self.next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        self.next().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { self.next() }
}

struct PayloadSingleValueEncodingContainer: SingleValueEncodingContainer {
    let context: PayloadEncodingContext
    var codingPath: [any CodingKey] { self.context.codingPath }

    mutating func encodeNil() throws { self.context.node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { self.context.node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { self.context.node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { try self.context.encodeDouble(value, original: value) }
    mutating func encode(_ value: Float) throws { try self.context.encodeDouble(Double(value), original: value) }
    mutating func encode(_ value: Int) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: Int8) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: Int16) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: Int32) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: Int64) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: UInt) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: UInt8) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: UInt16) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: UInt32) throws { self.context.encodeInteger(value) }
    mutating func encode(_ value: UInt64) throws { self.context.encodeInteger(value) }
    mutating func encode<Value: Encodable>(_ value: Value) throws { try self.context.encodeValue(value) }
}
