import Dispatch
import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import SocketIO

/// Socket.IO (polling, WebSocket, upgrade) through real proxies to python-socketio:
/// tinyproxy (HTTP CONNECT, Basic auth) and pproxy (SOCKS5, username/password).
/// The option tests without a network run in the `REALTIME_NO_NATIVE_STACK` build too (the
/// Apple platforms' `.enableSOCKSProxy`); only the loopback exchange needs the native proxy path.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct SocketIOProxyLoopbackTests {
    static let cases: [(String, TransportMode)] = ["tinyproxy", "pproxy-socks5"].flatMap { name in
        TransportMode.available.map { (name, $0) }
    }

    private func startProxy(_ name: String) async throws -> TestProxy {
        name == "tinyproxy"
            ? try await TestProxy.tinyproxy(username: "alice", password: "s3cr3t")
            : try await TestProxy.pproxy("socks5", username: "alice", password: "s3cr3t")
    }

    private func proxy(_ name: String, _ server: TestProxy, password: String) -> SocketProxy {
        name == "tinyproxy"
            ? .http(host: "127.0.0.1", port: server.port, username: "alice", password: password)
            : .socks5(host: "127.0.0.1", port: server.port, username: "alice", password: password)
    }

    /// Connects through `proxy`; returns the ack of `ack_me` or the first error's message.
    private func exchange(_ url: URL, _ mode: TransportMode, proxy: SocketProxy) async -> (ack: String?, error: String?) {
        var config: SocketIOClientConfiguration = [.handleQueue(DispatchQueue(label: "sio-proxy")), .reconnects(false)]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: url, config: config)
        manager.proxy = proxy
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let connected = EventWaiter(socket, clientEvent: .connect)
        let failed = EventWaiter(socket, clientEvent: .error)
        socket.connect()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if await connected.value(timeout: 0.01) != nil { break }
            if let error = await failed.value(timeout: 0.01) { return (nil, error.first as? String ?? "?") }
        }
        let acked = AckBox()
        socket.emitWithAck("ack_me", "through the proxy").timingOut(after: 10) { acked.set($0.first as? String) }
        return (await acked.value(), nil)
    }

    @Test(.needsNativeProxy, arguments: cases)
    func connectsAndExchangesThroughTheProxy(_ name: String, _ mode: TransportMode) async throws {
        let proxy = try await self.startProxy(name)
        defer { proxy.stop() }
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)")!
        // Wrong credentials first (pproxy lets an address in for a while after one success).
        let refused = await self.exchange(url, mode, proxy: self.proxy(name, proxy, password: "wrong"))
        #expect(refused.ack == nil)
        #expect(refused.error?.contains("proxy") == true, "\(refused)")
        let result = await self.exchange(url, mode, proxy: self.proxy(name, proxy, password: "s3cr3t"))
        #expect(result.ack == "through the proxy", "\(result)")
    }

    @Test func enableSOCKSProxyMeansTheEnvironmentsSOCKSProxy() {
        let url = URL(string: "http://chat.example:80/socket.io/")!
        let socks = SocketProxy.systemSOCKS(["ALL_PROXY": "socks5://bob:pw@10.0.0.1:1080", "no_proxy": "internal.example"])
        #expect(socks.configuration.server(for: url)?.description == "socks5://bob:***@10.0.0.1:1080")
        #expect(socks.configuration.server(for: URL(string: "https://a.internal.example/")!) == nil)
        #expect(SocketProxy.systemSOCKS(["socks_proxy": "127.0.0.1:9050"]).configuration.server(for: url)?.port == 9050)
        // An HTTP proxy is not a SOCKS proxy; nothing set means direct (as URLSession without one).
        #expect(SocketProxy.systemSOCKS(["all_proxy": "http://10.0.0.1:3128"]).configuration == .direct)
        #expect(SocketProxy.systemSOCKS([:]).configuration == .direct)
    }

    @Test func anExplicitProxyWinsAndReachesTheEngine() {
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:1")!, config: [.enableSOCKSProxy(true)])
        manager.proxy = .http(host: "10.1.1.1", port: 3128)
        let engine = SocketEngine(client: manager, url: manager.socketURL, config: [.enableSOCKSProxy(true)])
        engine.proxy = manager.proxy
        #expect(engine.enableSOCKSProxy)
        #expect(engine.proxyConfiguration().description == "http://10.1.1.1:3128")
        engine.proxy = nil
        #expect(engine.proxyConfiguration() == SocketProxy.systemSOCKS().configuration)
    }
}

/// A value set once from a callback thread.
private final class AckBox: @unchecked Sendable {
    // @unchecked: `stored` is behind `lock`.
    private let lock = NSLock()
    private var stored: String??

    func set(_ value: String?) { self.lock.withLock { if self.stored == nil { self.stored = .some(value) } } }

    func value(timeout: Double = 12) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let value = self.lock.withLock({ self.stored }) { return value }
            try? await Task.sleep(.milliseconds(5))
        }
        return nil
    }
}
