import Foundation
import TestSupport
import Testing

@testable import RealtimeHTTP

/// Keep-alive as URLSession does it: the requests of one ``URLSessionHTTPTransport`` (one
/// engine's polling, one event source process-wide) reuse the session's connection, and
/// separate transports (separate engines) do not share connections.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct URLSessionKeepAliveTests {
    @Test func sequentialRequestsReuseTheSessionsConnection() async throws {
        let server = try await SharedTestServer.http.server()
        let transport = URLSessionHTTPTransport()
        var ports: [Int] = []
        for _ in 0..<3 {
            ports.append(
                try await transport.execute(HTTPClientRequest(url: server.url("/conn")))
                    .decode(PeerPortReply.self).peer_port)
        }
        #expect(Set(ports).count == 1, "one connection for three requests: \(ports)")

        let other = URLSessionHTTPTransport()
        let otherPort = try await other.execute(HTTPClientRequest(url: server.url("/conn"))).decode(PeerPortReply.self)
        #expect(otherPort.peer_port != ports[0], "another transport's session opened its own connection")
    }
}
