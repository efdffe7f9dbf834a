import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// Codable emits, acks and streams against the real python-socketio server
/// (`Tests/Servers/conc_server.py`'s `codable:echo`, which reports which values arrived as
/// binary attachments), over WebSocket and polling.
@Suite(.serialized) struct CodableRealServerTests {
    struct Photo: Codable, Equatable, Sendable {
        var caption: String
        var bytes: Data
        var likes: Int
        var tags: [String]
    }

    struct Echo: Decodable, Equatable {
        var echo: [Photo]
        var binary: [String]
    }

    struct Unrelated: Decodable, Sendable {
        var missing: Int
    }

    @Test func encodableOutDecodableBackDataAsAttachments() async throws {
        let server = try await TestServer.start("conc_server.py")
        for transport in BuildConfiguration.noNativeStack
            ? [SocketIOClientOption.forcePolling(true)]
            : [SocketIOClientOption.forceWebsockets(true), .forcePolling(true)]
        {
            let manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                config: [transport, .log(false), .reconnects(false), .handleQueue(DispatchQueue(label: "CodableRealServerTests"))])
            let socket = manager.defaultSocket
            try await socket.connect(timeout: 5)

            let photo = Photo(caption: "sunset", bytes: Data([0xFF, 0, 0x10]), likes: 7, tags: ["sky"])
            let received = Collector<Photo>()
            let stream = socket.on("codable:new", as: Photo.self)
            let listener = Task {
                for try await value in stream {
                    received.append(value)
                }
            }
            let reply = try await socket.emitWithAck("codable:echo", encoding: photo, as: Echo.self)
            #expect(reply == Echo(echo: [photo], binary: ["$0.bytes"]))  // Data went as an attachment
            try await waitUntil { received.all.count == 1 }
            #expect(received.all == [photo])

            // Two arguments arrive as one array payload: it does not decode as one Photo, and the
            // stream ends with a typed error naming the event and the type.
            try await socket.emit("codable:echo", encoding: photo, photo)
            switch await listener.result {
            case .failure(SocketIOClient.Error.invalidSocketData(let event, let message)):
                #expect(event == "codable:new")
                #expect(message == "cannot decode Photo at the payload: Expected Dictionary<String, Any> but found an array")
            case let other:
                Issue.record("the stream should end with invalidSocketData, not \(other)")
            }
            #expect(received.all == [photo])

            // An ack that does not decode: a typed error naming the event.
            await #expect(
                throws: SocketIOClient.Error.invalidSocketData(event: "codable:echo", message: "cannot decode Unrelated: no value for missing")
            ) {
                _ = try await socket.emitWithAck("codable:echo", encoding: 1, as: Unrelated.self)
            }
            try await socket.disconnect()
            manager.disconnect()
        }
    }
}
