import Foundation
public import SocketIO

extension SocketIOClient {
    /// Decodes `Decodable` values from a ``Payload``: the reverse of ``PayloadEncoder``.
    ///
    /// ```swift
    /// struct Message: Codable { var text: String; var image: Data }
    /// let message = try SocketIOClient.PayloadDecoder().decode(Message.self, from: payload)
    /// ```
    ///
    /// Reading rules: a number decodes into any numeric type that holds it exactly (`3.0` into
    /// an `Int`, `3` into a `Double`; `2.5` into an `Int` is an error); a ``Payload/bool(_:)``
    /// only into `Bool`; `Data` from a binary attachment (``Payload/data(_:)``) or from base64
    /// text (what a JSON-only peer sends); `URL` from a string; `Date` through its own
    /// `Decodable` conformance (`JSONDecoder`'s default `.deferredToDate`); a missing key or
    /// ``Payload/null`` into an `Optional` as `nil`.
    public struct PayloadDecoder: Sendable {
        /// Contextual information for the values' `init(from:)`.
        public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

        /// A decoder with no user info.
        public init() {}

        /// Decodes a `Value` from `payload`.
        ///
        /// - Throws: `DecodingError` naming the coding path of what did not fit.
        public func decode<Value: Decodable>(_ type: Value.Type, from payload: Payload) throws -> Value {
            try PayloadDecodingContext(payload: payload, codingPath: [], userInfo: self.userInfo).decodeValue(type)
        }
    }
}

// MARK: - Decoder

/// The `Decoder` handed to each value: the payload it reads and its coding path.
struct PayloadDecodingContext: Decoder {
    typealias Payload = SocketIOClient.Payload

    let payload: Payload
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]

    init(payload: Payload, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.payload = payload
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { self.sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = self.payload else {
            throw self.mismatch([String: Any].self)
        }
        return KeyedDecodingContainer(PayloadKeyedDecodingContainer<Key>(context: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = self.payload else {
            throw self.mismatch([Any].self)
        }
        return PayloadUnkeyedDecodingContainer(context: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        PayloadSingleValueDecodingContainer(context: self)
    }

    func child(_ payload: Payload, key: any CodingKey) -> PayloadDecodingContext {
        PayloadDecodingContext(payload: payload, codingPath: self.codingPath + [key], userInfo: self.sendableUserInfo)
    }

    func mismatch(_ expected: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            expected,
            DecodingError.Context(
                codingPath: self.codingPath,
                debugDescription: "Expected \(expected) but found \(self.payload.kindDescription)"))
    }

    // MARK: Values

    /// Decodes `type` from this context's payload, with the special cases of
    /// ``SocketIO/SocketIOClient/PayloadDecoder``'s discussion.
    func decodeValue<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if type == Data.self {
            return try self.decodeData() as! Value
        }
        if type == URL.self {
            guard case .string(let text) = self.payload, let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: self.codingPath, debugDescription: "Not a URL: \(self.payload)"))
            }
            return url as! Value
        }
        if type == Decimal.self {
            // `Decimal(Double)` traps on infinity (a JSON number like `1e999` reads as one), and
            // gives NaN for a NaN or a number outside Decimal's range.
            let double = try self.decodeDouble()
            let decimal = double.isFinite ? Decimal(double) : .nan
            guard !decimal.isNaN else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: self.codingPath, debugDescription: "\(double) is not a Decimal"))
            }
            return decimal as! Value
        }
        if type == SocketIOClient.Payload.self {
            return self.payload as! Value
        }
        return try Value(from: self)
    }

    func decodeData() throws -> Data {
        switch self.payload {
        case .data(let data):
            return data
        case .string(let text):
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: self.codingPath, debugDescription: "Not base64 text"))
            }
            return data
        default:
            throw self.mismatch(Data.self)
        }
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let value) = self.payload else { throw self.mismatch(Bool.self) }
        return value
    }

    func decodeString() throws -> String {
        guard case .string(let value) = self.payload else { throw self.mismatch(String.self) }
        return value
    }

    func decodeDouble() throws -> Double {
        switch self.payload {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: throw self.mismatch(Double.self)
        }
    }

    func decodeFloat() throws -> Float {
        let value = try self.decodeDouble()
        let float = Float(value)
        guard float.isFinite || !value.isFinite else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: self.codingPath, debugDescription: "\(value) does not fit Float"))
        }
        return float
    }

    func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        let number: Integer?
        switch self.payload {
        case .int(let value): number = Integer(exactly: value)
        case .double(let value): number = Integer(exactly: value)
        default: throw self.mismatch(type)
        }
        guard let number else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: self.codingPath, debugDescription: "\(self.payload) does not fit \(type)"))
        }
        return number
    }
}

extension SocketIOClient.Payload {
    /// What kind of value this is, for decoding errors.
    var kindDescription: String {
        switch self {
        case .string: "a string"
        case .int, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .data: "binary data"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

// MARK: - Containers

struct PayloadKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let context: PayloadDecodingContext
    let members: [String: SocketIOClient.Payload]

    var codingPath: [any CodingKey] { self.context.codingPath }
    var allKeys: [Key] { self.members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { self.members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> PayloadDecodingContext {
        guard let value = self.members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(codingPath: self.codingPath, debugDescription: "No value for key '\(key.stringValue)'"))
        }
        return self.context.child(value, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { (self.members[key.stringValue] ?? .null) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try self.child(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try self.child(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try self.child(key).decodeDouble() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try self.child(key).decodeFloat() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try self.child(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try self.child(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try self.child(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try self.child(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try self.child(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try self.child(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try self.child(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try self.child(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try self.child(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try self.child(key).decodeInteger(type) }
    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try self.child(key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try self.child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        self.context.child(self.members["super"] ?? .null, key: PayloadStringKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        self.context.child(self.members[key.stringValue] ?? .null, key: key)
    }
}

struct PayloadUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let context: PayloadDecodingContext
    let elements: [SocketIOClient.Payload]
    private(set) var currentIndex = 0

    init(context: PayloadDecodingContext, elements: [SocketIOClient.Payload]) {
        self.context = context
        self.elements = elements
    }

    var codingPath: [any CodingKey] { self.context.codingPath }
    var count: Int? { self.elements.count }
    var isAtEnd: Bool { self.currentIndex >= self.elements.count }

    private mutating func next(_ type: Any.Type) throws -> PayloadDecodingContext {
        guard !self.isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: self.codingPath + [PayloadIndexKey(intValue: self.currentIndex)],
                    debugDescription: "The array has only \(self.elements.count) elements"))
        }
        defer { self.currentIndex += 1 }
        return self.context.child(self.elements[self.currentIndex], key: PayloadIndexKey(intValue: self.currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !self.isAtEnd, self.elements[self.currentIndex] == .null else { return false }
        self.currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try self.next(type).decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try self.next(type).decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try self.next(type).decodeDouble() }
    mutating func decode(_ type: Float.Type) throws -> Float { try self.next(type).decodeFloat() }
    mutating func decode(_ type: Int.Type) throws -> Int { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try self.next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try self.next(type).decodeInteger(type) }
    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try self.next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try self.next([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try self.next([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try self.next(Any.self) }
}

struct PayloadSingleValueDecodingContainer: SingleValueDecodingContainer {
    let context: PayloadDecodingContext
    var codingPath: [any CodingKey] { self.context.codingPath }

    func decodeNil() -> Bool { self.context.payload == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try self.context.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try self.context.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try self.context.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { try self.context.decodeFloat() }
    func decode(_ type: Int.Type) throws -> Int { try self.context.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try self.context.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try self.context.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try self.context.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try self.context.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try self.context.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try self.context.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try self.context.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try self.context.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try self.context.decodeInteger(type) }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try self.context.decodeValue(type) }
}
