public import SocketIO

extension SocketIOClient.Payload: Codable {
    /// Decodes the JSON value in a single-value container.
    ///
    /// JSON has no binary type: a ``data(_:)`` is encoded the way `Data` encodes itself
    /// (base64 text with `JSONEncoder`'s default), so it decodes back as ``string(_:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([SocketIOClient.Payload].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: SocketIOClient.Payload].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Not a JSON value Payload can hold")
        }
    }

    /// Encodes the JSON value in a single-value container (a ``data(_:)`` as `Data` encodes
    /// itself: base64 text with `JSONEncoder`'s default).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .data(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}
