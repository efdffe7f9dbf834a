package import EngineIOProtocol
import Foundation

/// Converts the `[Any]` payloads of the public API to and from the protocol layer's
/// ``JSONValue``: the package's one reading of untyped values (`SocketIOConcurrency`'s
/// `Payload(socketValue:)` goes through it too).
///
/// - Foundation numbers are told apart by class first: `NSNumber(value: true)` (and every
///   boolean `JSONSerialization` makes) is an instance of one class, on Linux and Apple, so a
///   boolean never reads as `1` nor `1` as `true`; then by `objCType` (`f`/`d` doubles,
///   unsigned types as integers when they fit, else doubles, `B` booleans, anything else
///   integers: an `Int8` number is `1`, not `true`).
/// - Swift values are matched by exact type before any bridging cast.
/// - `Data` / `NSData` become binary attachments (`.binary`), also inside containers.
/// - A nested custom ``SocketData`` is replaced by its `socketRepresentation()`.
///
/// Two policies for what JSON cannot hold (an unknown type, a dictionary key that is not a
/// string, a representation that throws or is its own type, nesting too deep): emits
/// (``jsonValue(from:depth:)``) put `null` there, as before; ``strictJSONValue(from:maximumDepth:)``
/// throws a ``Failure``. Non-finite doubles become `null` for emits and are kept by the strict one.
package enum SocketValueConversion {
    /// Deepest nesting converted for emits; deeper values become `null` instead of recursing further.
    static let maximumDepth = 128

    /// Why ``strictJSONValue(from:maximumDepth:)`` refused a value.
    package enum Failure: Error {
        /// A value of this type has no JSON form.
        case unsupportedType(String)
        /// A dictionary key of this type (only strings are accepted).
        case unsupportedKeyType(String)
        /// Nesting deeper than the limit.
        case tooDeep(Int)
        /// A custom value's `socketRepresentation()` threw this.
        case representationFailed(any Error)
    }

    /// The value for an emit: what JSON cannot hold becomes `null`.
    static func jsonValue(from value: Any, depth: Int = 0) -> JSONValue {
        // Lenient: every failure below becomes `null` in place, so nothing is thrown.
        (try? Self.convert(value, depth: depth, limit: Self.maximumDepth, strict: false)) ?? .null
    }

    /// The value, or the first thing in it JSON cannot hold.
    ///
    /// - Throws: ``Failure``.
    package static func strictJSONValue(from value: Any, maximumDepth: Int) throws(Failure) -> JSONValue {
        try Self.convert(value, depth: 0, limit: maximumDepth, strict: true)
    }

    /// The class of `NSNumber(value: true)`: Foundation's boolean numbers are instances of
    /// exactly this class.
    private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

    private static func convert(_ value: Any, depth: Int, limit: Int, strict: Bool) throws(Failure) -> JSONValue {
        guard depth < limit else {
            if strict { throw .tooDeep(limit) }
            return .null
        }
        let dynamicType = type(of: value)
        // The common exact types first: each check below costs a metadata lookup or a cast.
        if dynamicType == String.self, let string = value as? String { return .string(string) }
        if dynamicType is NSNumber.Type, let number = value as? NSNumber {
            return Self.convert(number: number, strict: strict)
        }
        if dynamicType == Bool.self, let bool = value as? Bool { return .bool(bool) }
        if dynamicType == Int.self, let int = value as? Int { return .int(int) }
        if dynamicType == Double.self, let double = value as? Double { return Self.number(double, strict: strict) }
        // Containers before Foundation classes: on Linux a cast of an array to `NSData` or
        // `NSNull` would first bridge the whole (possibly deep) array.
        switch value {
        case let string as String:
            return .string(string)
        case let elements as [Any]:
            var result: [JSONValue] = []
            result.reserveCapacity(elements.count)
            for element in elements {
                result.append(try Self.convert(element, depth: depth + 1, limit: limit, strict: strict))
            }
            return .array(result)
        case let members as [String: Any]:
            var result: [(String, JSONValue)] = []
            result.reserveCapacity(members.count)
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                result.append((key, try Self.convert(member, depth: depth + 1, limit: limit, strict: strict)))
            }
            return .object(JSONObject(result))
        case let data as Data:
            return .binary(Array(data))
        case let integer as any BinaryInteger:
            return Int(exactly: integer).map(JSONValue.int) ?? .double(Double(integer))
        case let float as any BinaryFloatingPoint:
            return Self.number(Double(float), strict: strict)
        case is NSNull:
            return .null
        case let data as NSData:
            return .binary(Array(Data(referencing: data)))
        case let string as NSString:
            return .string(string as String)
        case let members as [AnyHashable: Any]:
            var result: [(String, JSONValue)] = []
            result.reserveCapacity(members.count)
            for (key, member) in members {
                guard let name = key.base as? String else {
                    if strict { throw .unsupportedKeyType(String(describing: type(of: key.base))) }
                    result.append((String(describing: key.base), try Self.convert(member, depth: depth + 1, limit: limit, strict: strict)))
                    continue
                }
                result.append((name, try Self.convert(member, depth: depth + 1, limit: limit, strict: strict)))
            }
            return .object(JSONObject(result.sorted(by: { $0.0 < $1.0 })))
        case let array as NSArray:
            var result: [JSONValue] = []
            for element in array {
                result.append(try Self.convert(element, depth: depth + 1, limit: limit, strict: strict))
            }
            return .array(result)
        default:
            break
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try Self.convert(wrapped, depth: depth + 1, limit: limit, strict: strict)
        }
        if let custom = value as? any SocketData {
            let representation: any SocketData
            do {
                representation = try custom.socketRepresentation()
            } catch {
                if strict { throw .representationFailed(error) }
                return .null
            }
            // A type whose representation is itself would loop forever.
            guard type(of: representation) != dynamicType else {
                if strict { throw .unsupportedType(String(describing: dynamicType)) }
                return .null
            }
            return try Self.convert(representation, depth: depth + 1, limit: limit, strict: strict)
        }
        if strict { throw .unsupportedType(String(describing: dynamicType)) }
        return .null
    }

    private static func number(_ double: Double, strict: Bool) -> JSONValue {
        double.isFinite || strict ? .double(double) : .null
    }

    private static func convert(number: NSNumber, strict: Bool) -> JSONValue {
        if type(of: number) == Self.booleanNumberClass {
            return .bool(number.boolValue)
        }
        switch String(cString: number.objCType) {
        case "f", "d":
            return Self.number(number.doubleValue, strict: strict)
        case "Q", "L", "I":
            return Int(exactly: number.uint64Value).map(JSONValue.int) ?? .double(number.doubleValue)
        case "B":
            return .bool(number.boolValue)
        default:
            return .int(number.intValue)
        }
    }

    /// Upstream's value for a decoded one (binary as `Data`).
    static func any(from value: JSONValue) -> Any {
        var attachments = SharedAttachmentData()
        return Self.any(from: value, sharing: &attachments)
    }

    /// Upstream's items for an event's or an ack's decoded arguments: one `Data` per
    /// attachment, however many placeholders name it (``SharedAttachmentData``).
    static func items(from arguments: some Collection<JSONValue>) -> [Any] {
        var attachments = SharedAttachmentData()
        return Self.items(from: arguments, sharing: &attachments)
    }

    private static func items(from values: some Collection<JSONValue>, sharing attachments: inout SharedAttachmentData) -> [Any] {
        var items: [Any] = []
        items.reserveCapacity(values.count)
        for value in values {
            items.append(Self.any(from: value, sharing: &attachments))
        }
        return items
    }

    private static func any(from value: JSONValue, sharing attachments: inout SharedAttachmentData) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let bool): return bool
        case .int(let int): return int
        case .double(let double): return double
        case .string(let string): return string
        case .array(let elements): return Self.items(from: elements, sharing: &attachments)
        case .object(let object):
            var dictionary = [String: Any](minimumCapacity: object.count)
            for (key, element) in object {
                dictionary[key] = Self.any(from: element, sharing: &attachments)
            }
            return dictionary
        case .binary(let bytes): return attachments.data(bytes)
        }
    }
}

/// The `Data` of a packet's binary attachments, made once each while one value is converted.
///
/// Every placeholder of an attachment is replaced by the same bytes (the assembler shares the
/// array's storage). Converted one by one, each would become a `Data` of its own: a server's
/// 1,500 placeholders naming one 43 KB attachment would make 64 MiB of copies from a 90 KB
/// message. Keyed by the storage the bytes share, each attachment becomes one `Data`, which
/// its placeholders share (copy on write).
package struct SharedAttachmentData {
    private var made: [UnsafeRawPointer: Data] = [:]

    package init() {}

    /// `bytes` as `Data`: the same `Data` for every array that shares this storage.
    package mutating func data(_ bytes: [UInt8]) -> Data {
        // Small attachments are copied: a lookup costs about as much.
        guard bytes.count >= 256 else { return Data(bytes) }
        // The storage outlives the conversion: the value converted holds every array.
        guard let storage = bytes.withUnsafeBytes({ $0.baseAddress }) else { return Data(bytes) }
        if let made = self.made[storage] { return made }
        let data = Data(bytes)
        self.made[storage] = data
        return data
    }
}
