import Foundation
import RealtimeHTTP
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing
import WebSocketCodec

/// The client connection against a scripted in-memory server: exact frames on the wire.
@Suite struct WebSocketConnectionTests {
    /// A client whose connector hands out `stream`, and the scripted server on the other end.
    static func connected(options: WebSocketOptions = WebSocketOptions(), extraHeaders: String = "")
        async throws -> (WebSocketClientConnection, WebSocketScriptedServer)
    {
        let (clientEnd, serverEnd) = WebSocketMemoryStream.pair()
        let client = WebSocketClient(eventLoops: EventLoopGroup.shared) { _, _, _ throws(NetworkError) in clientEnd }
        var server = WebSocketScriptedServer(stream: serverEnd)
        async let connection = client.openConnection(to: URL(string: "ws://example.test/chat?room=1")!, options: options)
        try await server.acceptHandshake(extraHeaders: extraHeaders)
        return (try await connection, server)
    }

    @Test func handshakeRequestHasTheRequiredHeaders() async throws {
        var options = WebSocketOptions()
        options.headers.add(name: "Cookie", value: "session=abc")
        options.headers.add(name: "Upgrade", value: "h2c")  // reserved: dropped
        let (_, server) = try await Self.connected(options: options)
        let lines = server.requestHead.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "GET /chat?room=1 HTTP/1.1")
        #expect(lines.contains("Host: example.test"))
        #expect(lines.contains("Upgrade: websocket"))
        #expect(!lines.contains("Upgrade: h2c"))
        #expect(lines.contains("Connection: Upgrade"))
        #expect(lines.contains("Sec-WebSocket-Version: 13"))
        #expect(lines.contains("Cookie: session=abc"))
        #expect(!lines.contains { $0.hasPrefix("Sec-WebSocket-Extensions") })
        let key = try #require(lines.first { $0.hasPrefix("Sec-WebSocket-Key: ") })
        #expect(key.count == "Sec-WebSocket-Key: ".count + 24)
    }

    @Test func sendsMaskedFramesAndReceivesMessages() async throws {
        var (connection, server) = try await Self.connected()
        try await connection.send(.text("héllo"))
        try await connection.send(.binary([1, 2, 3]))
        #expect(try await server.nextFrame() == WebSocketFrame(opcode: .text, payload: Array("héllo".utf8)))
        #expect(try await server.nextFrame() == WebSocketFrame(opcode: .binary, payload: [1, 2, 3]))
        try await server.send(.text, Array("a".utf8), fin: false)
        try await server.send(.ping, [9])
        try await server.send(.continuation, Array("b".utf8))
        #expect(try await connection.receive() == .text("ab"))
        // The ping was answered with an identical pong while assembling.
        #expect(try await server.nextFrame() == WebSocketFrame(opcode: .pong, payload: [9]))
    }

    @Test func serverInitiatedCloseIsEchoed() async throws {
        var (connection, server) = try await Self.connected()
        try await server.send(.close, WebSocketFrameEncoder.closePayload(code: 4001, reason: "bye"))
        #expect(try await connection.receive() == nil)
        #expect(connection.closeStatus?.code == 4001)
        #expect(connection.closeStatus?.reason == "bye")
        #expect(try await server.nextFrame() == WebSocketFrame(opcode: .close, payload: [0x0F, 0xA1]))
        #expect(try await server.nextFrame() == nil)  // then the socket closes
        #expect(try await connection.receive() == nil)  // and stays closed
        #expect(await webSocketErrorKind { try await connection.send(.text("late")) } != nil)
    }

    @Test func clientInitiatedCloseWaitsForTheServer() async throws {
        var (connection, server) = try await Self.connected()
        async let closing: Void = connection.close(code: 1000, reason: "done")
        #expect(try await server.nextFrame() == WebSocketFrame(opcode: .close, payload: [0x03, 0xE8] + Array("done".utf8)))
        try await server.send(.close, [0x03, 0xE8])
        await closing
        #expect(connection.closeStatus?.code == 1000)
        #expect(try await server.nextFrame() == nil)
    }

    @Test func closeTimesOutWhenTheServerNeverAnswers() async throws {
        var options = WebSocketOptions()
        options.closeTimeout = .milliseconds(200)
        var (connection, server) = try await Self.connected(options: options)
        let started = MonotonicInstant.now
        await connection.close(code: 1001, reason: "")
        #expect(MonotonicInstant.now - started >= .milliseconds(200))
        #expect(connection.closeStatus?.code == 1006)
        #expect(try await server.nextFrame()?.opcode == .close)
        #expect(try await server.nextFrame() == nil)
    }

    /// A close whose task is cancelled stops waiting for the server at once and still closes
    /// the socket, while another task is reading (as a receive loop is): a cancelled timeout
    /// must not leave the close waiting for the peer forever.
    @Test(TestTimeLimit.minutes(1)) func cancelledCloseStillClosesTheSocket() async throws {
        var options = WebSocketOptions()
        options.closeTimeout = .seconds(3_600)  // only cancellation can end the wait
        let (opened, scripted) = try await Self.connected(options: options)
        let connection = opened
        var server = scripted
        let reading = Task { try await connection.receive() }
        try await Task.sleep(.milliseconds(50))  // let the reader start waiting
        let closing = Task { await connection.close(code: 1001, reason: "") }
        #expect(try await server.nextFrame()?.opcode == .close)  // the close went out; no answer
        closing.cancel()
        await closing.value
        #expect(try await server.nextFrame() == nil)  // the client closed the socket
        _ = try? await reading.value  // and the reader ended with it
        #expect(await webSocketErrorKind { try await connection.send(.text("late")) } != nil)
    }

    @Test func protocolErrorsCloseWithTheRightCode() async throws {
        let cases: [(frame: [UInt8], code: UInt16, kind: WebSocketError.Kind)] = [
            ([0x83, 0x00], 1002, .protocolError),
            ([0x81, 0x02, 0xC0, 0xAF], 1007, .invalidUTF8),
            ([0x82, 0x7F, 0, 0, 0, 0, 0x40, 0, 0, 0], 1009, .messageTooLarge),
        ]
        for test in cases {
            var (connection, server) = try await Self.connected()
            try await server.stream.write(test.frame)
            #expect(await webSocketErrorKind { _ = try await connection.receive() } == test.kind)
            let close = try await server.nextFrame()
            #expect(close?.opcode == .close)
            #expect(close.map { UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) } == test.code)
        }
    }

    @Test func invalidUTF8FailsBeforeTheFrameIsComplete() async throws {
        var (connection, server) = try await Self.connected()
        // A 100-byte text frame of which only an impossible prefix (F4 90) ever arrives.
        try await server.stream.write([0x81, 100, 0x68, 0x69, 0xF4, 0x90])
        #expect(await webSocketErrorKind { _ = try await connection.receive() } == .invalidUTF8)
        let close = try await server.nextFrame()
        #expect(close == WebSocketFrame(opcode: .close, payload: [0x03, 0xEF]))
    }

    @Test func validTextArrivingInPiecesIsNotRejected() async throws {
        let (connection, server) = try await Self.connected()
        let text = Array("κόσμε €".utf8)
        let receiving = Task { try await connection.receive() }
        try await server.stream.write([0x81, UInt8(text.count)])
        for byte in text {
            try await server.stream.write([byte])
            try await Task.sleep(.milliseconds(2))
        }
        #expect(try await receiving.value == .text("κόσμε €"))
    }

    @Test func subprotocolAndExtensionNegotiation() async throws {
        var options = WebSocketOptions(enableCompression: true)
        options.subprotocols = ["chat.v2", "chat.v1"]
        let (connection, server) = try await Self.connected(
            options: options,
            extraHeaders:
                "Sec-WebSocket-Protocol: chat.v1\r\nSec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; client_max_window_bits=10\r\n"
        )
        #expect(server.requestHead.contains("Sec-WebSocket-Protocol: chat.v2, chat.v1\r\n"))
        #expect(server.requestHead.contains("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, "))
        #expect(connection.subprotocol == "chat.v1")
        #expect(connection.compression == PerMessageDeflateParameters(clientNoContextTakeover: true, clientMaxWindowBits: 10))

        let rejected: [(options: WebSocketOptions, headers: String, kind: WebSocketError.Kind)] = [
            (WebSocketOptions(), "Sec-WebSocket-Extensions: permessage-deflate\r\n", .protocolError),
            (options, "Sec-WebSocket-Extensions: permessage-deflate; bogus\r\n", .protocolError),
            (options, "Sec-WebSocket-Protocol: chat.v3\r\n", .protocolError),
        ]
        for test in rejected {
            let (clientEnd, serverEnd) = WebSocketMemoryStream.pair()
            let client = WebSocketClient(eventLoops: EventLoopGroup.shared) { _, _, _ throws(NetworkError) in clientEnd }
            var scripted = WebSocketScriptedServer(stream: serverEnd)
            let opening = Task { try await client.openConnection(to: URL(string: "ws://example.test/")!, options: test.options) }
            try await scripted.acceptHandshake(extraHeaders: test.headers)
            #expect(await webSocketErrorKind { _ = try await opening.value } == test.kind, "\(test.headers)")
            #expect(clientEnd.isClosed)
        }
    }

    @Test func concurrentSendsNeverInterleave() async throws {
        var (connection, server) = try await Self.connected()
        let messages = (0..<50).map { index in [UInt8](repeating: UInt8(index), count: 1000 + index * 37) }
        let sender = connection
        await withTaskGroup(of: Void.self) { group in
            for message in messages {
                group.addTask { try? await sender.send(.binary(message)) }
            }
        }
        var received: [[UInt8]] = []
        for _ in messages {
            let frame = try #require(try await server.nextFrame())
            #expect(frame.opcode == .binary)
            received.append(frame.payload)
        }
        #expect(Set(received) == Set(messages))
    }

    @Test func cancellingReceiveClosesTheSocket() async throws {
        var (connection, server) = try await Self.connected()
        let receiving = Task { try await connection.receive() }
        try await Task.sleep(.milliseconds(50))
        receiving.cancel()
        #expect(await webSocketErrorKind { _ = try await receiving.value } == .cancelled)
        #expect(try await server.nextFrame() == nil)
    }

    @Test func eofWithoutCloseFrameIsAnError() async throws {
        let (connection, server) = try await Self.connected()
        try await server.send(.text, Array("last".utf8))
        server.stream.close()
        #expect(try await connection.receive() == .text("last"))
        #expect(await webSocketErrorKind { _ = try await connection.receive() } == .closed(code: 1006))
    }

    @Test func rejectsABadAcceptKey() async throws {
        let (clientEnd, serverEnd) = WebSocketMemoryStream.pair()
        let client = WebSocketClient(eventLoops: EventLoopGroup.shared) { _, _, _ throws(NetworkError) in clientEnd }
        let connection = Task { try await client.openConnection(to: URL(string: "ws://example.test/")!, options: WebSocketOptions()) }
        _ = try await serverEnd.read(maxLength: 4096)
        try await serverEnd.write(Array("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: upgrade\r\nSec-WebSocket-Accept: nope\r\n\r\n".utf8))
        #expect(await webSocketErrorKind { _ = try await connection.value } == .invalidAcceptKey)
    }
}

/// The kind of the ``WebSocketError`` `body` throws (`nil` if it returns; `.unsupported` for
/// another error type, which no test expects).
func webSocketErrorKind(_ body: () async throws -> Void) async -> WebSocketError.Kind? {
    do {
        try await body()
        return nil
    } catch let error as WebSocketError {
        return error.kind
    } catch {
        return .unsupported
    }
}
