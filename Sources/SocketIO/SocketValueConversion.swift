import EngineIOProtocol
import Foundation

/// Converts the `[Any]` payloads of the public API to and from the protocol layer's
/// ``JSONValue``.
///
/// - `Bool` is checked before numbers: on Linux an `NSNumber` holding `1` answers `is Bool`,
///   so natives are matched by exact type and `NSNumber`s by their `objCType` (`c`/`B` are
///   booleans, `f`/`d` doubles, anything else integers).
/// - `Data` / `NSData` become binary attachments (`.binary`), also inside containers.
/// - A nested custom ``SocketData`` is replaced by its `socketRepresentation()`.
/// - Values JSON cannot hold (non-finite doubles, unknown types) become `null`.
enum SocketValueConversion {
    /// Deepest nesting converted; deeper values become `null` instead of recursing further.
    static let maximumDepth = 128

    static func jsonValue(from value: Any, depth: Int = 0) -> JSONValue {
        guard depth < self.maximumDepth else { return .null }

        switch value {
        case let bool as Bool where type(of: value) == Bool.self:
            return .bool(bool)
        case let string as String:
            return .string(string)
        case let int as Int where type(of: value) == Int.self:
            return .int(int)
        case let double as Double where type(of: value) == Double.self:
            return double.isFinite ? .double(double) : .null
        case let float as Float where type(of: value) == Float.self:
            return float.isFinite ? .double(Double(float)) : .null
        case let data as Data:
            return .binary(Array(data))
        case let int as any BinaryInteger:
            return Int(exactly: int).map(JSONValue.int) ?? .double(Double(int))
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B":
                return .bool(number.boolValue)
            case "f", "d":
                return number.doubleValue.isFinite ? .double(number.doubleValue) : .null
            default:
                return .int(number.intValue)
            }
        case is NSNull:
            return .null
        case let string as NSString:
            return .string(string as String)
        case let array as [Any]:
            return .array(array.map { self.jsonValue(from: $0, depth: depth + 1) })
        case let dictionary as [String: Any]:
            let members = dictionary.sorted(by: { $0.key < $1.key })
                .map { ($0.key, self.jsonValue(from: $0.value, depth: depth + 1)) }
            return .object(JSONObject(members))
        case let array as NSArray:
            return .array(array.map { self.jsonValue(from: $0, depth: depth + 1) })
        case let dictionary as NSDictionary:
            var members: [(String, JSONValue)] = []
            for (key, element) in dictionary {
                members.append((String(describing: key), self.jsonValue(from: element, depth: depth + 1)))
            }
            return .object(JSONObject(members.sorted(by: { $0.0 < $1.0 })))
        case let custom as SocketData:
            if let representation = try? custom.socketRepresentation(),
               type(of: representation) != type(of: custom) {
                return self.jsonValue(from: representation, depth: depth + 1)
            }
            return .null
        default:
            return .null
        }
    }

    static func any(from value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case let .bool(bool): return bool
        case let .int(int): return int
        case let .double(double): return double
        case let .string(string): return string
        case let .array(elements): return elements.map { self.any(from: $0) }
        case let .object(object):
            var dictionary = [String: Any](minimumCapacity: object.count)
            for (key, element) in object {
                dictionary[key] = self.any(from: element)
            }
            return dictionary
        case let .binary(bytes): return Data(bytes)
        }
    }
}
