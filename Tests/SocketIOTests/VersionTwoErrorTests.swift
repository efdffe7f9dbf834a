import Dispatch
import Foundation
import Testing

@testable import SocketIO

/// `.version(.two)` ERROR packets reach the app as upstream's parser makes them: the `error`
/// client event with `[value]`, a JSON array's elements, or `[]`.
@Suite(.serialized) struct VersionTwoErrorTests {
    @Test func publicPacketDataFollowsUpstream() throws {
        #expect(try SocketPacket.decode(#"4"not allowed""#, version: .two).data as? [String] == ["not allowed"])
        let object = try SocketPacket.decode(#"4/admin,{"reason":"banned"}"#, version: .two)
        #expect(object.nsp == "/admin")
        #expect((object.data.first as? [String: Any])?["reason"] as? String == "banned")
        let array = try SocketPacket.decode(#"4["a",1]"#, version: .two)
        #expect(array.data.count == 2)
        #expect(array.data.first as? String == "a")
        #expect(array.data.last as? Int == 1)
        #expect(try SocketPacket.decode("4", version: .two).data.isEmpty)
        #expect(try SocketPacket.decode("4123", version: .two).data.first as? Int == 123)
        #expect(throws: SocketParsableError.invalidPacket) { try SocketPacket.decode("4123", version: .three) }
    }

    /// Against python-socketio 4.6 (Socket.IO 2.x): a refused namespace's ERROR packet, in
    /// each form the server sends, becomes the `error` event; the socket is not connected.
    @Test(arguments: TransportMode.available)
    func refusedNamespacesReportTheServersError(_ mode: TransportMode) async throws {
        let harness = try await VersionTwoHarness(mode)
        defer { harness.stop() }
        _ = try #require(await harness.connect(harness.manager.defaultSocket))
        for namespace in ["/refused", "/refused-object", "/refused-multi", "/refused-empty"] {
            let socket = harness.manager.socket(forNamespace: namespace)
            let failed = EventWaiter(socket, clientEvent: .error)
            socket.connect()
            let items = try #require(await failed.value(), "\(namespace)")
            switch namespace {
            case "/refused":
                #expect(items as? [String] == ["not allowed"])
            case "/refused-object":
                #expect((items.first as? [String: Any])?["reason"] as? String == "banned")
                #expect(items.count == 1)
            case "/refused-multi":
                #expect(items.first as? String == "a")
                #expect(items.last as? Int == 1)
                #expect(items.count == 2)
            default:
                #expect(items.isEmpty)
            }
            #expect(socket.status != .connected, "\(namespace)")
        }
        // The session itself goes on.
        #expect(harness.manager.defaultSocket.status == .connected)
    }
}
