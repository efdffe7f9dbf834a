import RealtimeIO

extension WebSocketClient {
    /// A client over the native transport: ``NetworkConnector`` (TCP, TLS for `wss`).
    package convenience init() {
        self.init(connector: { endpoint, timeout throws(NetworkError) in
            try await NetworkConnector.connect(to: endpoint, timeout: timeout)
        })
    }
}
