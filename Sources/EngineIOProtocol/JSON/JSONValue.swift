/// A JSON value as carried by Socket.IO packets and the Engine.IO handshake.
///
/// Socket.IO v5 sends its payloads as JSON text after the packet header
/// (socket.io-protocol v5, "Packet encoding" / "Format"); the Engine.IO v4 `open` packet carries
/// a JSON object (engine.io-protocol v4, "Handshake"). This type models RFC 8259 values with
/// three choices that matter for interoperability:
///
/// - Numbers that are integers and fit `Int` parse as ``int(_:)``; every other number as
///   ``double(_:)``. A ``bool(_:)`` never turns into a number, and a number never into a bool.
/// - Objects keep the order of their members (``JSONObject``), so a payload prints back the way
///   it arrived and the way the caller built it.
/// - ``binary(_:)`` is not JSON: it stands for a binary attachment of a Socket.IO
///   `BINARY_EVENT` / `BINARY_ACK` packet after reassembly (socket.io-protocol v5, "with binary
///   data"). The encoder replaces it by `{"_placeholder":true,"num":n}`; serializing it directly
///   writes that placeholder shape with `num` in traversal order.
///
/// ```swift
/// let value = try JSONValue(parsing: #"["chat",{"text":"hi","n":1}]"#)
/// value.serializedString() // ["chat",{"text":"hi","n":1}]
/// ```
///
/// The type lives in `EngineIOProtocol` because the Engine.IO handshake needs it and
/// `SocketIOProtocol` builds on this target.
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer number that fits `Int`.
    case int(Int)
    /// Any other number (fraction, exponent, or an integer outside `Int`'s range).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order is kept.
    case object(JSONObject)
    /// A binary attachment (not JSON); see the type's discussion.
    case binary([UInt8])
}

// MARK: - Accessors

extension JSONValue {
    /// The string, when this is ``string(_:)``.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is ``int(_:)``, or a ``double(_:)`` holding an exact integer
    /// that fits `Int` (`25000.0` → `25000`).
    package var intValue: Int? {
        switch self {
        case .int(let value):
            return value
        case .double(let value):
            // Range-check, then convert by truncation and compare (no libm `trunc` needed).
            guard value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0 else { return nil }
            let integer = Int(value)
            return Double(integer) == value ? integer : nil
        default:
            return nil
        }
    }

    /// The number as a `Double`, when this is ``int(_:)`` or ``double(_:)``.
    package var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean, when this is ``bool(_:)``.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is ``array(_:)``.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is ``object(_:)``.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// `true` for ``null``.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` when this is an object, else `nil`.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// `true` when this value, or any value nested in it, is ``binary(_:)``.
    package var containsBinary: Bool {
        switch self {
        case .binary:
            return true
        case .array(let elements):
            return elements.contains { $0.containsBinary }
        case .object(let object):
            return object.contains { $0.value.containsBinary }
        case .null, .bool, .int, .double, .string:
            return false
        }
    }
}
