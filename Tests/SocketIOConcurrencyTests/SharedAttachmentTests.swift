import EngineIOProtocol
import Foundation
import SocketIOProtocol
import Testing

@testable import SocketIO
@testable import SocketIOConcurrency

/// A packet whose placeholders name one attachment many times is delivered with one `Data`
/// for it, shared by every placeholder: a hostile server's small message must not become
/// one copy of the attachment per placeholder (1,500 placeholders naming a 43 KB attachment
/// were 64 MiB of `Data` from a 90 KB message).
@Suite struct SharedAttachmentTests {
    static let references = 1_000

    /// The event's decoded arguments: `["e", <placeholder 0> × references]`, the attachment
    /// `size` bytes.
    func assembledArguments(size: Int) throws -> [JSONValue] {
        let placeholders = Array(repeating: #"{"_placeholder":true,"num":0}"#, count: Self.references).joined(separator: ",")
        let packet = try SocketPacketDecoder().decode(#"51-["e",\#(placeholders)]"#)
        var assembler = try BinaryPacketAssembler(packet: packet)
        let assembled = try #require(try assembler.append([UInt8](repeating: 7, count: size)))
        return Array(assembled.arguments)
    }

    /// The storage of each `Data`.
    static func storages(_ data: [Data]) -> Set<UInt> {
        Set(data.map { $0.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } })
    }

    @Test func aStreamsPayloadSharesOneDataPerAttachment() throws {
        let arguments = try self.assembledArguments(size: 4_096)
        let payload = SocketIOClient.Payload(arguments: arguments)
        guard case .array(let values) = payload else {
            Issue.record("not an array: \(payload)")
            return
        }
        let data = values.compactMap { if case .data(let data) = $0 { data } else { nil } }
        #expect(data.count == Self.references)
        #expect(data.allSatisfy { $0 == Data(repeating: 7, count: 4_096) })
        #expect(Self.storages(data).count == 1)
    }

    @Test func upstreamsItemsShareOneDataPerAttachment() throws {
        let items = SocketValueConversion.items(from: try self.assembledArguments(size: 4_096))
        let data = items.compactMap { $0 as? Data }
        #expect(data.count == Self.references)
        #expect(Self.storages(data).count == 1)
        // Two packets' conversions share nothing with each other.
        let other = SocketValueConversion.items(from: try self.assembledArguments(size: 4_096)).compactMap { $0 as? Data }
        #expect(Self.storages(data).isDisjoint(with: Self.storages(other)))
    }

    /// A copy of a shared `Data` that the app changes is its own: the others keep the bytes.
    @Test func changingOneSharedDataLeavesTheOthers() throws {
        var data = SocketValueConversion.items(from: try self.assembledArguments(size: 1_024)).compactMap { $0 as? Data }
        data[0][0] = 9
        #expect(data[0][0] == 9)
        #expect(data[1...].allSatisfy { $0 == Data(repeating: 7, count: 1_024) })
    }
}
