package import Foundation

/// Proxy settings from environment variables, as curl reads them.
///
/// - `https_proxy` / `HTTPS_PROXY` for `https` and `wss` URLs, `http_proxy` / `HTTP_PROXY` for
///   `http` and `ws`, `all_proxy` / `ALL_PROXY` for either when the specific one is unset. The
///   lowercase name wins when both are set. Values are proxy URLs (see
///   ``ProxyConfiguration/parseProxyURL(_:defaultKind:)``); an unparsable value counts as unset.
/// - `no_proxy` / `NO_PROXY`: comma-separated exceptions: `*` (no proxy at all), a host name
///   matching itself and its subdomains (`example.com`, `.example.com`), an IP address
///   (compared as written), each optionally with `:port`. CIDR ranges are not supported.
///
/// - Important: `HTTP_PROXY` in upper case can be set by a CGI request header ("httpoxy");
///   environment proxies are only used when the caller asks for them.
package struct ProxyEnvironment: Sendable, Hashable {
    package var httpProxy: ProxyServer?
    package var httpsProxy: ProxyServer?
    package var allProxy: ProxyServer?
    package var noProxy: [String]

    package init(
        httpProxy: ProxyServer? = nil, httpsProxy: ProxyServer? = nil, allProxy: ProxyServer? = nil,
        noProxy: [String] = []
    ) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.allProxy = allProxy
        self.noProxy = noProxy
    }

    /// Reads the variables (lowercase first).
    package init(variables: [String: String]) {
        func value(_ name: String) -> String? {
            let found = variables[name.lowercased()] ?? variables[name.uppercased()]
            return found?.isEmpty == true ? nil : found
        }
        self.httpProxy = value("http_proxy").flatMap { ProxyConfiguration.parseProxyURL($0) }
        self.httpsProxy = value("https_proxy").flatMap { ProxyConfiguration.parseProxyURL($0) }
        self.allProxy = value("all_proxy").flatMap { ProxyConfiguration.parseProxyURL($0) }
        self.noProxy = (value("no_proxy") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }

    /// The proxy for `url`, or `nil` when none is set for its scheme or `no_proxy` exempts it.
    package func server(for url: URL) -> ProxyServer? {
        let scheme = url.scheme?.lowercased() ?? ""
        let isSecure = scheme == "https" || scheme == "wss"
        guard let server = (isSecure ? self.httpsProxy : self.httpProxy) ?? self.allProxy else { return nil }
        guard var host = url.host?.lowercased(), !host.isEmpty else { return server }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? (isSecure ? 443 : 80)
        return self.isExempt(host: host, port: port) ? nil : server
    }

    /// Whether `no_proxy` lists `host` (and `port`, when the entry names one).
    package func isExempt(host: String, port: Int) -> Bool {
        let host = host.hasSuffix(".") ? String(host.dropLast()) : host
        for entry in self.noProxy {
            if entry == "*" { return true }
            var pattern = Substring(entry)
            var entryPort: Int?
            if pattern.hasPrefix("[") {
                // [v6]:port or [v6]
                guard let close = pattern.firstIndex(of: "]") else { continue }
                let rest = pattern[pattern.index(after: close)...]
                if rest.hasPrefix(":") { entryPort = Int(rest.dropFirst()) }
                pattern = pattern[pattern.index(after: pattern.startIndex)..<close]
            } else if pattern.filter({ $0 == ":" }).count == 1, let colon = pattern.lastIndex(of: ":") {
                entryPort = Int(pattern[pattern.index(after: colon)...])
                pattern = pattern[..<colon]
            }
            if let entryPort, entryPort != port { continue }
            if pattern.hasPrefix("*.") { pattern = pattern.dropFirst() }
            if pattern.hasPrefix(".") { pattern = pattern.dropFirst() }
            if pattern.hasSuffix(".") { pattern = pattern.dropLast() }
            guard !pattern.isEmpty else { continue }
            if host == pattern || host.hasSuffix("." + pattern) { return true }
        }
        return false
    }
}
