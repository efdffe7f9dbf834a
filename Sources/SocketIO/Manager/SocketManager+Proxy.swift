extension SocketManager {
    /// The proxy for this manager's connections: HTTP `CONNECT` or SOCKS5 (see ``SocketProxy``,
    /// which also says what URLSession makes of it). `nil` (the default) connects directly, or, with
    /// `.enableSOCKSProxy(true)`, through the environment's SOCKS proxy (`ALL_PROXY` /
    /// `SOCKS_PROXY`, see ``SocketProxy``).
    ///
    /// ```swift
    /// manager.proxy = .http(host: "proxy.corp", port: 3128, username: "me", password: "secret")
    /// ```
    ///
    /// - Important: Takes effect for the next connection: set it before `connect()` (it is
    ///   also handed to the current engine).
    public var proxy: SocketProxy? {
        get { self.state.withLock { $0.proxy } }
        set {
            let engine = self.state.withLock { state -> SocketEngineSpec? in
                state.proxy = newValue
                return state.engine
            }
            (engine as? SocketEngine)?.proxy = newValue
        }
    }
}
