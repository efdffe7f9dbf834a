import RealtimeHTTP

extension SocketEngine {
    /// The proxy this engine's polling requests and WebSocket go through; `nil` (the default)
    /// means ``SocketProxy/direct``, or the environment's SOCKS proxy with
    /// `.enableSOCKSProxy(true)` (see ``SocketManager/proxy``). Set it before `connect()`.
    public var proxy: SocketProxy? {
        get { self.state.withLock { $0.proxy } }
        set { self.state.withLock { $0.proxy = newValue } }
    }

    /// The proxy requests use: the explicit one, else `.enableSOCKSProxy`'s, as the current
    /// attempt's snapshot fixed them at `connect()` (before it: as set now).
    func proxyConfiguration() -> ProxyConfiguration {
        self.state.withLock { $0.requestOptions.proxy }
    }
}
