import Foundation
import TestSupport
import Testing

@testable import EventSource

/// Credentials never follow a redirect to another origin (RFC 9110 §15.4: a client should
/// not forward credentials across origins), and they do on the same origin; `127.0.0.1` and
/// `localhost` are different origins served by one `sse_raw_server.py`.
@Suite(.serialized) struct EventSourceCredentialTests {
    struct Echo: Decodable {
        var headers: [String: String]
    }

    func echoedHeaders(_ transport: EventSource.Transport, port: Int, to target: String) async throws -> [String: String] {
        let location = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/redirect?to=\(location)")!)
        request.setValue("Bearer redirect-secret", forHTTPHeaderField: "Authorization")
        request.setValue("session=redirect-cookie", forHTTPHeaderField: "Cookie")
        request.setValue("kept", forHTTPHeaderField: "X-Plain")
        let task = EventSource(timeoutInterval: 10, transport: transport).dataTask(for: request)
        for await event in task.events() {
            if case .event(let event) = event, let data = event.data {
                return try JSONDecoder().decode(Echo.self, from: Data(data.utf8)).headers
            }
            if case .error(let error) = event { Issue.record("\(transport): \(error)") }
        }
        Issue.record("\(transport): no echo event")
        return [:]
    }

    @Test(arguments: LoopbackTests.transports)
    func credentialsStayOnTheirOrigin(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let crossOrigin = try await self.echoedHeaders(
            transport, port: server.port,
            to: "http://localhost:\(server.port)/echo")
        #expect(crossOrigin["authorization"] == nil, "\(transport): \(crossOrigin)")
        #expect(crossOrigin["cookie"] == nil, "\(transport): \(crossOrigin)")
        #expect(crossOrigin["x-plain"] == "kept")

        let sameOrigin = try await self.echoedHeaders(transport, port: server.port, to: "/echo")
        #expect(sameOrigin["authorization"] == "Bearer redirect-secret")
        #expect(sameOrigin["x-plain"] == "kept")
    }
}
