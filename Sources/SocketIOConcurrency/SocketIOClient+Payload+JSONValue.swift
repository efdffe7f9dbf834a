import EngineIOProtocol
import Foundation
import SocketIO

// MARK: - JSONValue -> Payload

extension SocketIOClient.Payload {
    /// The payload of a value the protocol layer decoded from the network (binary attachments
    /// already in place as ``JSONValue/binary(_:)``): the one conversion a network event or
    /// ack goes through on its way to a `for await` or an awaiting `emitWithAck`.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(int)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .binary(let bytes): self = .data(Data(bytes))
        case .array(let elements): self = .array(elements.map { Self($0) })
        case .object(let object):
            var members: [String: Self] = [:]
            members.reserveCapacity(object.count)
            for (key, element) in object {
                members[key] = Self(element)
            }
            self = .object(members)
        }
    }

    /// The payload of an event's arguments or an ack's items, as ``init(socketItems:)`` makes
    /// it: one value is that value's payload; zero or several are an ``array(_:)``.
    init(arguments: some Collection<JSONValue>) {
        self = arguments.count == 1 ? Self(arguments.first!) : .array(arguments.map { Self($0) })
    }
}

// MARK: - Payload -> JSONValue

extension SocketIOClient.Payload {
    /// The protocol layer's value for this payload (object members in key order, so the
    /// encoded text is the same on every run).
    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .int(let int): return .int(int)
        case .double(let double): return .double(double)
        case .string(let string): return .string(string)
        case .data(let data): return .binary(Array(data))
        case .array(let elements): return .array(elements.map(\.jsonValue))
        case .object(let members):
            return .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) }))
        }
    }
}
