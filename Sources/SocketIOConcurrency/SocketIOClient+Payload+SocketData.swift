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
    /// ``SocketIO/SocketData`` values (through their `socketRepresentation()`), and payloads.
    ///
    /// - Throws: ``SocketIOClient/Error/unsupportedPayloadType(typeName:)``,
    ///   ``SocketIOClient/Error/unsupportedDictionaryKeyType(typeName:)``, or
    ///   ``SocketIOClient/Error/invalidSocketData(event:message:)`` when a custom value's
    ///   representation throws or nesting exceeds 512 levels.
    public init(socketData value: any SocketData) throws(SocketIOClient.Error) {
        self = try Self.convert(value, depth: 0)
    }

    /// Converts the items of an event or an ack: one item is that item's payload; zero or
    /// several items are an ``array(_:)``.
    public init(socketItems items: [Any]) throws(SocketIOClient.Error) {
        if items.count == 1 {
            self = try Self.convert(items[0], depth: 0)
        } else {
            self = .array(try Self.convertElements(items, depth: 0))
        }
    }

    /// Converts one untyped value (see ``init(socketData:)``).
    public init(socketValue value: Any) throws(SocketIOClient.Error) {
        self = try Self.convert(value, depth: 0)
    }

    private static func convert(_ value: Any, depth: Int) throws(SocketIOClient.Error) -> Self {
        guard depth < Self.maximumDepth else {
            throw .invalidSocketData(event: nil, message: "nesting deeper than \(Self.maximumDepth) levels")
        }
        let dynamicType = type(of: value)
        // Foundation numbers first, by class: a boolean NSNumber must not become 1 or 0.
        if dynamicType is NSNumber.Type, let number = value as? NSNumber {
            return Self.convert(number: number)
        }
        // Exact Swift types: no bridging casts, so `true` never reads as `1` nor `1` as `true`.
        if dynamicType == Bool.self, let value = value as? Bool { return .bool(value) }
        if dynamicType == Int.self, let value = value as? Int { return .int(value) }
        if dynamicType == Double.self, let value = value as? Double { return .double(value) }
        // Containers before Foundation classes: on Linux a cast of an array to `NSData` or
        // `NSNull` would first bridge the whole (possibly deep) array.
        switch value {
        case let payload as SocketIOClient.Payload:
            return payload
        case let string as String:
            return .string(string)
        case let elements as [Any]:
            return .array(try Self.convertElements(elements, depth: depth + 1))
        case let members as [String: Any]:
            return .object(try Self.convertMembers(members, depth: depth + 1))
        case let data as Data:
            return .data(data)
        case let integer as any BinaryInteger:
            if let exact = Int(exactly: integer) { return .int(exact) }
            return .double(Double(integer))
        case let float as any BinaryFloatingPoint:
            return .double(Double(float))
        case is NSNull:
            return .null
        case let data as NSData:
            return .data(Data(referencing: data))
        case let members as [AnyHashable: Any]:
            var object: [String: Self] = [:]
            object.reserveCapacity(members.count)
            for (key, member) in members {
                guard let key = key.base as? String else {
                    throw .unsupportedDictionaryKeyType(typeName: String(describing: type(of: key.base)))
                }
                object[key] = try Self.convert(member, depth: depth + 1)
            }
            return .object(object)
        default:
            break
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try Self.convert(wrapped, depth: depth + 1)
        }
        if let custom = value as? any SocketData {
            let representation: any SocketData
            do {
                representation = try custom.socketRepresentation()
            } catch let error as SocketIOClient.Error {
                throw error
            } catch {
                throw .invalidSocketData(event: nil, message: String(describing: error))
            }
            // A type whose representation is itself would loop forever.
            guard type(of: representation) != dynamicType else {
                throw .unsupportedPayloadType(typeName: String(describing: dynamicType))
            }
            return try Self.convert(representation, depth: depth + 1)
        }
        throw .unsupportedPayloadType(typeName: String(describing: dynamicType))
    }

    private static func convertElements(_ elements: [Any], depth: Int) throws(SocketIOClient.Error) -> [Self] {
        var result: [Self] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            result.append(try Self.convert(element, depth: depth))
        }
        return result
    }

    private static func convertMembers(_ members: [String: Any], depth: Int) throws(SocketIOClient.Error) -> [String: Self] {
        var result: [String: Self] = [:]
        result.reserveCapacity(members.count)
        for (key, member) in members {
            result[key] = try Self.convert(member, depth: depth)
        }
        return result
    }

    /// The class of `NSNumber(value: true)`: Foundation's boolean numbers (from
    /// `JSONSerialization` too) are instances of exactly this class, on Linux and Apple.
    private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

    private static func convert(number: NSNumber) -> Self {
        if type(of: number) == Self.booleanNumberClass {
            return .bool(number.boolValue)
        }
        switch String(cString: number.objCType) {
        case "f", "d":
            return .double(number.doubleValue)
        case "Q", "L", "I":
            if let exact = Int(exactly: number.uint64Value) { return .int(exact) }
            return .double(number.doubleValue)
        default:
            return .int(number.intValue)
        }
    }
}
