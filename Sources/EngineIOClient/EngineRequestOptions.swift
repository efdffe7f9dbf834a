package import EngineIOProtocol
package import Foundation
package import RealtimeHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one connection attempt uses, fixed at `connect()`: the machine's configuration, URLs,
/// headers, TLS and proxy, already derived (nothing is re-parsed per request). The facade
/// (`SocketEngine`) derives it from its options; the drivers build every request from it.
package struct EngineRequestOptions: Sendable {
    package var machine: EngineClientStateMachine.Configuration
    /// The polling and WebSocket URLs with Engine.IO's query (``EngineQuery``), no sid.
    package var urlPolling: URL
    package var urlWebSocket: URL
    /// Extra headers, sorted by name.
    package var extraHeaders: [(name: String, value: String)]
    /// Cookies the app gave, as `name=value` pairs (never logged).
    package var cookies: [(name: String, value: String)]
    package var tls: TLSConfiguration
    package var proxy: ProxyConfiguration
    /// permessage-deflate on the WebSocket.
    package var compress: Bool

    package init(
        machine: EngineClientStateMachine.Configuration, urlPolling: URL, urlWebSocket: URL,
        extraHeaders: [(name: String, value: String)], cookies: [(name: String, value: String)],
        tls: TLSConfiguration, proxy: ProxyConfiguration, compress: Bool
    ) {
        self.machine = machine
        self.urlPolling = urlPolling
        self.urlWebSocket = urlWebSocket
        self.extraHeaders = extraHeaders
        self.cookies = cookies
        self.tls = tls
        self.proxy = proxy
        self.compress = compress
    }

    /// Headers for every request: the extra headers, then `Cookie` from the app's cookies and
    /// the server's sticky cookies (never logged).
    ///
    /// The sticky cookies are those the server set on the polling responses (`sticky`,
    /// RealtimeHTTP's RFC 6265 store and its one `Set-Cookie` parser) that match the request's
    /// URL; a cookie named like one of the app's is left to the app's.
    ///
    /// - Parameter forWebSocket: the WebSocket client has no cookie store, so it always gets
    ///   the sticky cookies; an HTTP client that keeps cookies itself (`httpKeepsCookies`)
    ///   does not.
    package func headers(forWebSocket: Bool, sticky: HTTPCookieStore, httpKeepsCookies: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in self.extraHeaders {
            headers.add(name: name, value: value)
        }
        var pairs: [String] = self.cookies.map { "\($0.name)=\($0.value)" }
        if forWebSocket || !httpKeepsCookies {
            let url = forWebSocket ? self.urlWebSocket : self.urlPolling
            pairs += sticky.cookies(for: url)
                .filter { cookie in !self.cookies.contains(where: { $0.name == cookie.name }) }
                .map { "\($0.name)=\($0.value)" }
        }
        if !pairs.isEmpty {
            headers.replaceOrAdd(name: "Cookie", value: pairs.joined(separator: "; "))
        }
        return headers
    }

    /// The WebSocket URL, with `sid` for an upgrade (Engine.IO's rule, ``EngineQuery``).
    package func webSocketURL(sid: String?) -> URL {
        let base = self.urlWebSocket
        guard let sid, !sid.isEmpty,
            var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        else { return base }
        // Appended as text: re-setting `queryItems` would decode and re-encode the
        // connectParams (a `%2B` would go out as a raw `+`).
        components.percentEncodedQuery = EngineQuery.sessionPrefix(
            base: components.percentEncodedQuery ?? "", transport: .webSocket, sid: sid)
        return components.url ?? base
    }
}
