import RealtimeHTTP

extension SocketEngine {
    /// The proxy this engine's polling requests and WebSocket go through; `nil` (the default)
    /// means ``SocketProxy/direct``, or the environment's SOCKS proxy with
    /// `.enableSOCKSProxy(true)` (see ``SocketManager/proxy``). Set it before `connect()`.
    public var proxy: SocketProxy? {
        get { self.state.withLock { $0.proxy } }
        set { self.state.withLock { $0.proxy = newValue } }
    }

    /// The proxy for the next connection: the explicit one, else `.enableSOCKSProxy`'s.
    func proxyConfiguration() -> ProxyConfiguration {
        let (proxy, socks) = self.state.withLock { ($0.proxy, $0.enableSOCKSProxy) }
        if let proxy { return proxy.configuration }
        return socks ? SocketProxy.systemSOCKS().configuration : .direct
    }
}
