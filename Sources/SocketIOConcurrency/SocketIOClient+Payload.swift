public import Foundation
public import SocketIO

extension SocketIOClient {
    /// A Socket.IO value: what one event argument or one ack item can be.
    ///
    /// socket.io-client-swift hands events and acks over as `[Any]`; this enum is the typed,
    /// `Sendable` form of those values (JSON plus binary attachments). It is also
    /// `SocketData`, so it can be emitted as it is, and literals build it:
    ///
    /// ```swift
    /// let payload: SocketIOClient.Payload = ["message": "hi", "attempt": 1, "ok": true]
    /// await socket.emit("message:send", payload)
    /// ```
    ///
    /// A received event with one argument is that argument's payload; with several arguments
    /// (or none) it is an ``array(_:)`` of them.
    ///
    /// Booleans stay booleans: `true` is ``bool(_:)``, never ``int(_:)`` `1`, both for Swift
    /// values and for `NSNumber`s from Foundation's JSON parser, on Linux and Apple platforms.
    public enum Payload: Sendable, Hashable {
        /// A string.
        case string(String)
        /// An integer.
        case int(Int)
        /// A floating-point number.
        case double(Double)
        /// A boolean.
        case bool(Bool)
        /// JSON `null`.
        case null
        /// A binary attachment.
        case data(Data)
        /// An ordered list of payloads.
        case array([SocketIOClient.Payload])
        /// An object with string keys.
        case object([String: SocketIOClient.Payload])
    }
}

// MARK: - Accessors

extension SocketIOClient.Payload {
    /// The string, if this is ``string(_:)``.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, if this is ``int(_:)``.
    public var intValue: Int? { if case .int(let value) = self { value } else { nil } }
    /// The number, if this is ``double(_:)`` or ``int(_:)``.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }
    /// The boolean, if this is ``bool(_:)``.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The bytes, if this is ``data(_:)``.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The elements, if this is ``array(_:)``.
    public var arrayValue: [SocketIOClient.Payload]? { if case .array(let value) = self { value } else { nil } }
    /// The members, if this is ``object(_:)``.
    public var objectValue: [String: SocketIOClient.Payload]? { if case .object(let value) = self { value } else { nil } }
    /// `true` for ``null``.
    public var isNull: Bool { self == .null }

    /// The member named `key` of an ``object(_:)``.
    public subscript(key: String) -> SocketIOClient.Payload? {
        self.objectValue?[key]
    }

    /// The element at `index` of an ``array(_:)``; `nil` when out of range.
    public subscript(index: Int) -> SocketIOClient.Payload? {
        guard let elements = self.arrayValue, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

// MARK: - Literals

extension SocketIOClient.Payload: ExpressibleByStringLiteral {
    /// A ``string(_:)`` from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension SocketIOClient.Payload: ExpressibleByIntegerLiteral {
    /// An ``int(_:)`` from an integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension SocketIOClient.Payload: ExpressibleByFloatLiteral {
    /// A ``double(_:)`` from a floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension SocketIOClient.Payload: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)`` from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension SocketIOClient.Payload: ExpressibleByNilLiteral {
    /// ``null`` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension SocketIOClient.Payload: ExpressibleByArrayLiteral {
    /// An ``array(_:)`` from an array literal.
    public init(arrayLiteral elements: SocketIOClient.Payload...) { self = .array(elements) }
}

extension SocketIOClient.Payload: ExpressibleByDictionaryLiteral {
    /// Builds an ``object(_:)``; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, SocketIOClient.Payload)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Description

extension SocketIOClient.Payload: CustomStringConvertible, CustomDebugStringConvertible {
    /// JSON-like text: strings quoted, object keys sorted, binary shown as `<N bytes>`.
    public var description: String {
        switch self {
        case .string(let value): return Self.quoted(value)
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .data(let value): return "<\(value.count) bytes>"
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            let body = members.sorted { $0.key < $1.key }
                .map { "\(Self.quoted($0.key)): \($0.value.description)" }
                .joined(separator: ", ")
            return "{" + body + "}"
        }
    }

    /// ``description`` wrapped in `Payload(...)`.
    public var debugDescription: String { "Payload(\(self.description))" }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
