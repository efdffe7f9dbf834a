import Foundation
import ProxyCodec
import Testing

@testable import RealtimeHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How proxies reach URLSession: the `connectionProxyDictionary` of the session a request or
/// WebSocket uses. No network: FoundationNetworking ignores the dictionary on Linux, so what can
/// be checked here is the dictionary and which session carries it.
@Suite struct URLSessionProxyTests {
    let http = ProxyServer(kind: .httpConnect, host: "proxy.test", port: 3128)
    let socks = ProxyServer(
        kind: .socks5, host: "127.0.0.1", port: 1080,
        credentials: ProxyCredentials(username: "me", password: "secret"))

    @Test func anHTTPProxyFillsTheHTTPAndHTTPSEntries() {
        let dictionary = URLSessionProxy.connectionProxyDictionary(for: self.http)
        #expect(dictionary["HTTPEnable"] as? Int == 1)
        #expect(dictionary["HTTPProxy"] as? String == "proxy.test")
        #expect(dictionary["HTTPPort"] as? Int == 3128)
        #expect(dictionary["HTTPSEnable"] as? Int == 1)
        #expect(dictionary["HTTPSProxy"] as? String == "proxy.test")
        #expect(dictionary["HTTPSPort"] as? Int == 3128)
        #expect(dictionary["SOCKSEnable"] == nil)
    }

    @Test func aSOCKSProxyFillsOnlyTheSOCKSEntriesAndNoCredentials() {
        let dictionary = URLSessionProxy.connectionProxyDictionary(for: self.socks)
        #expect(dictionary["SOCKSEnable"] as? Int == 1)
        #expect(dictionary["SOCKSProxy"] as? String == "127.0.0.1")
        #expect(dictionary["SOCKSPort"] as? Int == 1080)
        #expect(dictionary["HTTPEnable"] == nil && dictionary["HTTPSEnable"] == nil)
        // URLSession has no credential entries: the password must not travel in the dictionary.
        #expect(!dictionary.values.contains { "\($0)".contains("secret") })
        #expect(dictionary.count == 3)
    }

    @Test func aDirectRequestKeepsTheSystemSettings() {
        let transport = URLSessionHTTPTransport()
        let url = URL(string: "https://example.test/events")!
        #expect(transport.sessionConfiguration(for: url, proxy: .direct).connectionProxyDictionary == nil)
    }

    @Test func eachProxyServerGetsOneSessionOfItsOwn() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Kept": "yes"]
        let transport = URLSessionHTTPTransport(configuration: configuration)
        let url = URL(string: "http://example.test/socket.io/")!
        let direct = transport.session(for: url, proxy: .direct)
        let viaSOCKS = transport.session(for: url, proxy: .server(self.socks))
        let again = transport.session(for: url, proxy: .server(self.socks))
        let viaHTTP = transport.session(for: url, proxy: .server(self.http))
        #expect(viaSOCKS.session === again.session)
        #expect(viaSOCKS.session !== direct.session && viaHTTP.session !== viaSOCKS.session)
        // Task identifiers are per session: each session routes its callbacks through its own delegate.
        #expect(viaSOCKS.delegate !== direct.delegate)
        let proxied = viaSOCKS.session.configuration
        #expect(proxied.connectionProxyDictionary?["SOCKSProxy"] as? String == "127.0.0.1")
        // The rest of the caller's configuration carries over.
        #expect(proxied.httpAdditionalHeaders?["X-Kept"] as? String == "yes")
        #expect(direct.session.configuration.connectionProxyDictionary == nil)
    }

    @Test func theEnvironmentChoosesPerURLAndNoProxyExempts() {
        let transport = URLSessionHTTPTransport()
        let proxy = ProxyConfiguration.environment([
            "https_proxy": "http://secure.proxy:8443", "http_proxy": "socks5://plain.proxy:1081",
            "no_proxy": "internal.test",
        ])
        let secure = transport.sessionConfiguration(for: URL(string: "wss://example.test/")!, proxy: proxy)
        #expect(secure.connectionProxyDictionary?["HTTPSProxy"] as? String == "secure.proxy")
        #expect(secure.connectionProxyDictionary?["HTTPSPort"] as? Int == 8443)
        let plain = transport.sessionConfiguration(for: URL(string: "http://example.test/")!, proxy: proxy)
        #expect(plain.connectionProxyDictionary?["SOCKSProxy"] as? String == "plain.proxy")
        let exempt = transport.sessionConfiguration(for: URL(string: "https://api.internal.test/")!, proxy: proxy)
        #expect(exempt.connectionProxyDictionary == nil)
    }
}
