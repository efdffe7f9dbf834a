import Foundation
import RealtimeHTTP
import TestSupport
import Testing

@testable import EventSource

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serves `mock://` requests with an event stream in a few chunks, as an app's tests mock the
/// network: a 200 with `Content-Type: text/event-stream` and `X-Mock: served`, then the body.
///
/// `@unchecked Sendable`: URLProtocol is not `Sendable`, yet the URL loading system creates
/// instances and calls them on its own threads. This subclass adds no stored property: it
/// reads only `request` and `client`, which the loading system sets at init and never changes.
final class MockEventStreamProtocol: URLProtocol, @unchecked Sendable {
    /// The body's chunks: an event split across chunks, CRLF split between two of them.
    static let chunks = ["id: 1\ndata: one\n\n", "data: tw", "o\r", "\n\r\nevent: greet\ndata: three\n", "\n"]

    /// Registered once for the process (`URLProtocol.registerClass(_:)`), on first use.
    static let registered: Bool = URLProtocol.registerClass(MockEventStreamProtocol.self)

    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.scheme?.lowercased() == "mock"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = self.request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "text/event-stream", "X-Mock": "served"])
        else {
            self.client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        self.client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        for chunk in Self.chunks {
            self.client?.urlProtocol(self, didLoad: Data(chunk.utf8))
        }
        self.client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

/// A request to a custom scheme served by a `URLProtocol` subclass: over URLSession (and
/// `.automatic`, which picks URLSession for it) the events arrive; the native client refuses it.
@Suite(.serialized, TestTimeLimit.minutes(1)) struct URLProtocolMockTests {
    /// The transports that reach a class registered with `URLProtocol.registerClass(_:)`, and
    /// the one given the class in its configuration. (On Apple platforms only
    /// `URLSession.shared` consults registered classes, so there only the last one applies.)
    static let transports: [(String, EventSource.Transport)] = {
        var transports: [(String, EventSource.Transport)] = [
            ("protocolClasses", .urlSession(protocolClasses: [MockEventStreamProtocol.self]))
        ]
        #if !canImport(Darwin)
        transports += [("urlSession", .urlSession), ("automatic", .automatic)]
        #endif
        return transports
    }()

    static var names: [String] { Self.transports.map(\.0) }

    @Test(arguments: URLProtocolMockTests.names)
    func theMockedStreamArrivesInOrder(transportName: String) async throws {
        #expect(MockEventStreamProtocol.registered)
        let transport = try #require(Self.transports.first { $0.0 == transportName }?.1)
        let task = EventSource(timeoutInterval: 10, transport: transport)
            .dataTask(for: URLRequest(url: URL(string: "mock://stream/events")!))
        var seen: [String] = []
        for await event in task.events() {
            if case .open = event {
                let response = try #require(task.response)
                #expect(response.statusCode == 200)
                #expect(response.value(forHTTPHeaderField: "X-Mock") == "served")
            }
            seen.append(event.summary)
        }
        #expect(
            seen == ["open", "event(-,1,one)", "event(-,-,two)", "event(greet,-,three)", "closed"],
            "\(transportName)")
        #expect(task.response?.statusCode == 200)
    }

    /// `.automatic` chooses per request: the native client for http and https (where it is
    /// built), URLSession for any other scheme.
    @Test func automaticPicksURLSessionForAnotherScheme() throws {
        let automatic = EventSource.Transport.automatic.makeHTTPTransport()
        if let chooser = automatic as? AutomaticHTTPTransport {
            #expect(chooser.transport(for: URL(string: "mock://stream")!) is URLSessionHTTPTransport)
            #expect(chooser.transport(for: URL(string: "HTTPS://example.com")!) is HTTPClient)
            #expect(chooser.transport(for: URL(string: "http://example.com")!) is HTTPClient)
        } else {
            #expect(automatic is URLSessionHTTPTransport)
        }
    }

    /// The native client sends http and https only: `mock://` ends the task with
    /// `URLError(.badURL)`, registered class or not.
    @Test(.enabled(if: !BuildConfiguration.noNativeStack))
    func theNativeClientRefusesACustomScheme() async throws {
        #expect(MockEventStreamProtocol.registered)
        let task = EventSource(timeoutInterval: 10, transport: .native)
            .dataTask(for: URLRequest(url: URL(string: "mock://stream/events")!))
        var seen: [String] = []
        for await event in task.events() {
            if case .error(let error) = event {
                #expect((error as? URLError)?.code == .badURL)
            }
            seen.append(event.summary)
        }
        #expect(seen == ["error(url \(URLError.Code.badURL.rawValue))", "closed"])
        #expect(task.response == nil)
    }
}
