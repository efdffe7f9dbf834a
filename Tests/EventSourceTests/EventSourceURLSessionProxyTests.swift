import Foundation
import RealtimeHTTP
import Testing

@testable import EventSource

/// `EventSource.proxy` over URLSession: every transport, URLSession included, gets the proxy
/// on each request (URLSession then makes it its session's `connectionProxyDictionary`,
/// checked in RealtimeHTTPTests' `URLSessionProxyTests`).
@Suite struct EventSourceURLSessionProxyTests {
    @Test func theURLSessionTransportCarriesTheProxyOnEveryRequest() throws {
        let proxy = EventSource.Proxy.socks5(host: "127.0.0.1", port: 1080)
        for transport in [EventSource.Transport.urlSession, .automatic, .native] {
            guard case .custom(let proxied) = transport.proxied(proxy).kind else {
                Issue.record("\(transport.kind) is not wrapped")
                continue
            }
            let wrapper = try #require(proxied as? ProxiedHTTPTransport)
            #expect(wrapper.proxy == proxy.configuration)
        }
        guard case .custom(let proxied) = EventSource.Transport.urlSession.proxied(proxy).kind,
            let wrapper = proxied as? ProxiedHTTPTransport
        else { return }
        #expect(wrapper.base is URLSessionHTTPTransport)
    }

    @Test func directLeavesTheTransportAsItIs() {
        guard case .urlSession = EventSource.Transport.urlSession.proxied(.direct).kind else {
            Issue.record("a direct proxy wrapped the transport")
            return
        }
    }
}
