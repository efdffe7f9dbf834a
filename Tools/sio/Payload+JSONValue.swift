import CommandLineSupport
import EngineIOProtocol
import Foundation
import SocketIOConcurrency

// Socket.IO values <-> the JSON the tool reads and prints. Binary attachments, which JSON
// cannot hold, are `{"$binary":"<base64>"}` both ways.

extension JSONValue {
    /// A received value as printed: object keys sorted (a `Payload` object is unordered).
    init(_ payload: SocketIOClient.Payload) {
        switch payload {
        case .string(let value): self = .string(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .bool(let value): self = .bool(value)
        case .null: self = .null
        case .data(let value): self = .object(["$binary": .string(value.base64EncodedString())])
        case .array(let values): self = .array(values.map(JSONValue.init))
        case .object(let members):
            self = .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }))
        }
    }

    /// One item of an event or an ack as socket.io-client-swift hands it over (`[Any]`).
    /// A value `Payload` cannot hold (none comes from the network) is printed as its description.
    init(socketItem item: Any) {
        if let payload = try? SocketIOClient.Payload(socketValue: item) {
            self.init(payload)
        } else {
            self = .string(String(describing: item))
        }
    }
}

extension SocketIOClient.Payload {
    /// A value to emit; `{"$binary":"<base64>"}` with valid base64 becomes a binary attachment.
    /// Of an object's repeated keys, the last is kept (as JavaScript's `JSON.parse` does).
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .binary(let bytes): self = .data(Data(bytes))
        case .array(let values): self = .array(values.map(SocketIOClient.Payload.init))
        case .object(let object):
            if object.count == 1, object[0].key == "$binary", case .string(let text) = object[0].value,
                let data = Data(base64Encoded: text)
            {
                self = .data(data)
            } else {
                self = .object(
                    Dictionary(
                        object.map { ($0.key, SocketIOClient.Payload($0.value)) },
                        uniquingKeysWith: { _, last in last }))
            }
        }
    }
}
