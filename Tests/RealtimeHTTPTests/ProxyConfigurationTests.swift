import Foundation
import ProxyCodec
import Testing

@testable import RealtimeHTTP

@Suite struct ProxyConfigurationTests {
    @Test func proxyURLsParse() {
        let http = ProxyConfiguration.parseProxyURL("http://us%40r:p%3Ass@proxy.corp:3128")
        #expect(
            http
                == ProxyServer(
                    kind: .httpConnect, host: "proxy.corp", port: 3128,
                    credentials: ProxyCredentials(username: "us@r", password: "p:ss")))
        #expect(
            ProxyConfiguration.parseProxyURL("socks5h://[::1]")
                == ProxyServer(kind: .socks5, host: "::1", port: 1080))
        #expect(ProxyConfiguration.parseProxyURL("proxy:8080")?.kind == .httpConnect)
        #expect(ProxyConfiguration.parseProxyURL("http://proxy")?.port == 80)
        for unsupported in ["https://proxy:443", "socks4://proxy:1080", "", "http://"] {
            #expect(ProxyConfiguration.parseProxyURL(unsupported) == nil, "\(unsupported)")
        }
        #expect(http?.description == "http://us@r:***@proxy.corp:3128")
    }

    @Test func environmentPicksBySchemeLowercaseFirst() {
        let environment = ProxyEnvironment(variables: [
            "HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2",
            "HTTP_PROXY": "socks5://plain:3", "ALL_PROXY": "socks5://all:4",
        ])
        #expect(environment.server(for: URL(string: "https://a.example/")!)?.host == "lower")
        #expect(environment.server(for: URL(string: "wss://a.example/")!)?.host == "lower")
        #expect(environment.server(for: URL(string: "ws://a.example/")!)?.host == "plain")
        let onlyAll = ProxyEnvironment(variables: ["all_proxy": "socks5://all:4"])
        #expect(onlyAll.server(for: URL(string: "http://a.example/")!)?.host == "all")
        #expect(ProxyEnvironment(variables: [:]).server(for: URL(string: "http://a.example/")!) == nil)
        #expect(ProxyConfiguration.direct.server(for: URL(string: "http://a.example/")!) == nil)
    }

    @Test func noProxyExemptsHostsDomainsAndPorts() {
        let environment = ProxyEnvironment(variables: [
            "all_proxy": "http://p:1", "NO_PROXY": "localhost, .internal.example,10.0.0.1, api.example:8443,[::1]",
        ])
        func proxied(_ url: String) -> Bool { environment.server(for: URL(string: url)!) != nil }
        #expect(!proxied("http://localhost:8080/"))
        #expect(!proxied("http://internal.example/"))
        #expect(!proxied("https://deep.internal.example/"))
        #expect(proxied("http://notinternal.example/"))
        #expect(!proxied("http://10.0.0.1/"))
        #expect(proxied("http://10.0.0.10/"))
        #expect(!proxied("https://api.example:8443/"))
        #expect(proxied("https://api.example/"))
        #expect(!proxied("http://[::1]:80/"))
        #expect(
            ProxyEnvironment(variables: ["all_proxy": "http://p:1", "no_proxy": "*"])
                .server(for: URL(string: "http://any.example/")!) == nil)
    }
}
