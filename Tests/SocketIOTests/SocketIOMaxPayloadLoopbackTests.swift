import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// Payloads near the server's maxPayload (python-socketio's default `max_http_buffer_size`,
/// 1,000,000 bytes, announced in the handshake): a single packet just under it goes through
/// both ways, and a burst whose total is several times the limit is split into POSTs the
/// server accepts (over polling), nothing lost, truncated or reordered.
@Suite(.serialized) struct SocketIOMaxPayloadLoopbackTests {
    /// Every transport against both server integrations, except polling against aiohttp:
    /// python-engineio's aiohttp driver reads a POST body with one `StreamReader.read(n)`,
    /// which returns only what has arrived so far (aiohttp issue 3926), so it truncates any
    /// body that reaches it in more than one piece, whatever the client. Its ASGI driver
    /// reads the whole body.
    static var cases: [(TransportMode, ServerFlavor)] {
        TransportMode.available.flatMap { mode in
            ServerFlavor.allCases.compactMap { flavor in
                mode == .polling && flavor == .aiohttp ? nil : (mode, flavor)
            }
        }
    }

    @Test(arguments: cases)
    func payloadsNearMaxPayload(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        // `42["ack_me","xxx…"]` and its answer `430["xxx…"]`: 999,950 bytes of text.
        let large = String(repeating: "x", count: 999_930)
        let answer = try #require(await harness.ack(socket, "ack_me", [large], timeout: 20))
        #expect(answer.first as? String == large)

        // Four packets of 400 KB each, back to back (1.6 MB in all), each acknowledged whole.
        let chunks = (0..<4).map { String(repeating: Character(UnicodeScalar(UInt8(97 + $0))), count: 400_000) }
        let answers = Recorder<(Int, String)>()
        for (index, chunk) in chunks.enumerated() {
            socket.emit("seq", index)
            socket.emitWithAck("ack_me", chunk).timingOut(after: 20) { answers.append((index, $0.first as? String ?? "")) }
        }
        #expect(await answers.wait(forCount: 4, timeout: 25))
        #expect(answers.values.map(\.0) == [0, 1, 2, 3])
        #expect(answers.values.map(\.1) == chunks)
        let sequence = try #require(await harness.ack(socket, "seq_result", [], timeout: 20))
        #expect((sequence.first as? [Any])?.compactMap { $0 as? Int } == [0, 1, 2, 3])
        #expect(socket.status == .connected)
        #expect(harness.manager.status == .connected)
    }

    /// A packet the server would refuse for its size (python-engineio drops the whole session
    /// over it) is not sent: an `error` event says why, and the session goes on.
    @Test(arguments: TransportMode.available)
    func aPacketOverMaxPayloadIsRefusedWithAnErrorAndTheSessionGoesOn(_ mode: TransportMode) async throws {
        let harness = try await LoopbackHarness(mode)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        let failed = EventWaiter(socket, clientEvent: .error)
        let written = Recorder<Bool>()
        socket.emit("ack_me", String(repeating: "z", count: 1_000_000), completion: { written.append(true) })
        let error = try #require(await failed.value())
        #expect((error.first as? String)?.contains("exceeds the server's maxPayload of 1000000 bytes") == true)
        // The write's completion still runs (nothing waits forever for it).
        #expect(await written.wait(forCount: 1))

        let answer = try #require(await harness.ack(socket, "ack_me", ["still here"]))
        #expect(answer.first as? String == "still here")
        #expect(socket.status == .connected)
        #expect(harness.manager.status == .connected)
    }
}
