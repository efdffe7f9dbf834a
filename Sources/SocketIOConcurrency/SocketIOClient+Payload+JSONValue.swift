import EngineIOProtocol
import Foundation
import SocketIO

// MARK: - JSONValue -> Payload

extension SocketIOClient.Payload {
    /// The payload of a value the protocol layer decoded from the network (binary attachments
    /// already in place as ``JSONValue/binary(_:)``): the one conversion a network event or
    /// ack goes through on its way to a `for await` or an awaiting `emitWithAck`.
    init(_ value: JSONValue) {
        var attachments = SharedAttachmentData()
        self.init(value, sharing: &attachments)
    }

    /// One `Data` per attachment, however many placeholders name it (`SharedAttachmentData`).
    private init(_ value: JSONValue, sharing attachments: inout SharedAttachmentData) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(int)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .binary(let bytes): self = .data(attachments.data(bytes))
        case .array(let elements): self = .array(Self.payloads(elements, sharing: &attachments))
        case .object(let object):
            var members: [String: Self] = [:]
            members.reserveCapacity(object.count)
            for (key, element) in object {
                members[key] = Self(element, sharing: &attachments)
            }
            self = .object(members)
        }
    }

    private static func payloads(_ values: some Collection<JSONValue>, sharing attachments: inout SharedAttachmentData) -> [Self] {
        var payloads: [Self] = []
        payloads.reserveCapacity(values.count)
        for value in values {
            payloads.append(Self(value, sharing: &attachments))
        }
        return payloads
    }

    /// The payload of an event's arguments or an ack's items, as ``init(socketItems:)`` makes
    /// it: one value is that value's payload; zero or several are an ``array(_:)``.
    init(arguments: some Collection<JSONValue>) {
        var attachments = SharedAttachmentData()
        self = arguments.count == 1 ? Self(arguments.first!, sharing: &attachments) : .array(Self.payloads(arguments, sharing: &attachments))
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
