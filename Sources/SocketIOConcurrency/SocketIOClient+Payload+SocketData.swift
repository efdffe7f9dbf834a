import Foundation
public import SocketIO

// MARK: - Payload -> SocketData

extension SocketIOClient.Payload: SocketData {
    /// The Foundation value socket.io-client-swift serializes: `String`, `Int`, `Double`,
    /// `Bool`, `NSNull`, `Data`, `[Any]` or `[String: Any]`, nested.
    public func socketRepresentation() throws -> SocketData {
        switch self {
        case .string(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .null: return NSNull()
        case .data(let value): return value
        case .array(let values):
            let elements: [Any] = values.map(\.foundationValue)
            return elements
        case .object(let members):
            let object: [String: Any] = members.mapValues(\.foundationValue)
            return object
        }
    }

    /// This payload as the untyped value socket.io-client-swift uses (see ``socketRepresentation()``).
    public var foundationValue: Any {
        switch self {
        case .string(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .null: return NSNull()
        case .data(let value): return value
        case .array(let values): return values.map(\.foundationValue) as [Any]
        case .object(let members): return members.mapValues(\.foundationValue) as [String: Any]
        }
    }
}

// MARK: - SocketData -> Payload

extension SocketIOClient.Payload {
    /// The deepest nesting accepted when converting untyped values (bounds the recursion).
    static let maximumDepth = 512

    /// Converts a value socket.io-client-swift produced or accepts.
    ///
    /// Accepts Swift and Foundation strings, numbers, booleans, `Data`/`NSData`,
    /// `NSNull` and `nil`, arrays and string-keyed dictionaries of those, other
    /// `SocketData` values (through their `socketRepresentation()`), and payloads.
    ///
    /// - Throws: ``SocketIOClient/Error/unsupportedPayloadType(typeName:)``,
    ///   ``SocketIOClient/Error/unsupportedDictionaryKeyType(typeName:)``, or
    ///   ``SocketIOClient/Error/invalidSocketData(event:message:)`` when a custom value's
    ///   representation throws or nesting exceeds 512 levels.
    public init(socketData value: any SocketData) throws(SocketIOClient.Error) {
        self = try Self.convert(value)
    }

    /// Converts the items of an event or an ack: one item is that item's payload; zero or
    /// several items are an ``array(_:)``.
    public init(socketItems items: [Any]) throws(SocketIOClient.Error) {
        if items.count == 1 {
            self = try Self.convert(items[0])
        } else {
            var elements: [Self] = []
            elements.reserveCapacity(items.count)
            for item in items {
                elements.append(try Self.convert(item))
            }
            self = .array(elements)
        }
    }

    /// Converts one untyped value (see ``init(socketData:)``).
    public init(socketValue value: Any) throws(SocketIOClient.Error) {
        self = try Self.convert(value)
    }

    /// One value through SocketIO's reading of untyped values (`SocketValueConversion`, the
    /// one the emits use, in its strict form), then ``init(_:)`` from the `JSONValue`.
    private static func convert(_ value: Any) throws(SocketIOClient.Error) -> Self {
        if let payload = value as? SocketIOClient.Payload { return payload }
        do {
            return Self(try SocketValueConversion.strictJSONValue(from: value, maximumDepth: Self.maximumDepth))
        } catch {
            switch error {
            case .unsupportedType(let typeName):
                throw .unsupportedPayloadType(typeName: typeName)
            case .unsupportedKeyType(let typeName):
                throw .unsupportedDictionaryKeyType(typeName: typeName)
            case .tooDeep(let limit):
                throw .invalidSocketData(event: nil, message: "nesting deeper than \(limit) levels")
            case .representationFailed(let error as SocketIOClient.Error):
                throw error
            case .representationFailed(let error):
                throw .invalidSocketData(event: nil, message: String(describing: error))
            }
        }
    }
}
