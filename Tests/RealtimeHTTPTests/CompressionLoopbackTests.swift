import Foundation
import HTTP1Codec
import RealtimeIO
import TestSupport
import Testing

@testable import RealtimeHTTP

/// Compressed responses from a real aiohttp server that compresses an event stream itself
/// (zlib with Z_SYNC_FLUSH per event) and sends each event only after the previous one arrived.
@Suite(.serialized, TestTimeLimit.minutes(1)) struct CompressionLoopbackTests {
    @Test(arguments: ["gzip", "deflate", "raw"])
    func eachFlushedEventArrivesBeforeTheNextIsSent(_ coding: String) async throws {
        let server = try await TestServer.start("sse_gzip_server.py")
        defer { server.stop() }
        let client = HTTPClient()
        let response = try await client.execute(
            HTTPClientRequest(
                url: server.url("/stream?coding=\(coding)&count=4"),
                idleTimeout: .seconds(8)))
        #expect(response.headers.first(name: "Content-Encoding") == (coding == "gzip" ? "gzip" : "deflate"))
        var text = ""
        var seen = 0
        for try await chunk in response.body {
            text += String(decoding: chunk, as: UTF8.self)
            while let range = text.range(of: "\n\n") {
                let event = String(text[..<range.lowerBound])
                text = String(text[range.upperBound...])
                seen += 1
                #expect(event.hasPrefix("id: \(seen)\nevent: tick\ndata: compressed event \(seen) "))
                // The server is waiting for this before it sends event seen + 1.
                if seen < 4 { _ = try await client.execute(HTTPClientRequest(url: server.url("/next"))).body.collect(upTo: 64) }
            }
        }
        #expect(seen == 4)
        #expect(!server.lines.contains { $0.hasPrefix("TIMEOUT") })
        #expect(try await server.waitForLine { $0.hasPrefix("ACCEPT-ENCODING") } == "ACCEPT-ENCODING gzip, deflate")
    }

    @Test func aRequestWithItsOwnAcceptEncodingGetsTheBodyUntouched() async throws {
        let server = try await TestServer.start("sse_gzip_server.py")
        defer { server.stop() }
        let request = HTTPClientRequest(url: server.url("/stream?coding=gzip&count=1"), headers: ["Accept-Encoding": "gzip"])
        let body = try await HTTPClient().execute(request).body.collect(upTo: 1 << 20)
        #expect(Array(body.prefix(2)) == [0x1F, 0x8B])
        #expect(try await server.waitForLine { $0.hasPrefix("ACCEPT-ENCODING") } == "ACCEPT-ENCODING gzip")
    }

    @Test func withDecompressionOffNothingIsAsked() async throws {
        let server = try await TestServer.start("sse_gzip_server.py")
        defer { server.stop() }
        var configuration = HTTPClient.Configuration()
        configuration.decompressesResponses = false
        let body = try await HTTPClient(configuration: configuration)
            .execute(HTTPClientRequest(url: server.url("/stream?count=1"))).body.collect(upTo: 1 << 20)
        #expect(String(decoding: body, as: UTF8.self).hasPrefix("id: 1\n"))
        #expect(try await server.waitForLine { $0.hasPrefix("ACCEPT-ENCODING") } == "ACCEPT-ENCODING -")
    }

    @Test func aGzipBombIsATypedError() async throws {
        let server = try await TestServer.start("sse_gzip_server.py")
        defer { server.stop() }
        let response = try await HTTPClient().execute(HTTPClientRequest(url: server.url("/bomb")))
        var produced = 0
        do {
            for try await chunk in response.body { produced += chunk.count }
            Issue.record("64 MiB of zeros from 64 KiB were accepted")
        } catch {
            #expect(error.kind == .decompressedBodyTooLarge)
        }
        #expect(produced <= (16 << 20) + 100 * 128 * 1024)
    }

    @Test func theWebSocketUpgradeRequestAsksForNoContentCoding() throws {
        let request = try WebSocketHandshakeRequest(
            url: URL(string: "ws://127.0.0.1:1/")!, key: "dGhlIHNhbXBsZSBub25jZQ==",
            options: WebSocketOptions(enableCompression: true))
        let text = String(decoding: request.serialized(), as: UTF8.self).lowercased()
        #expect(!text.contains("accept-encoding"))
        #expect(text.contains("sec-websocket-extensions: permessage-deflate"))
    }
}
