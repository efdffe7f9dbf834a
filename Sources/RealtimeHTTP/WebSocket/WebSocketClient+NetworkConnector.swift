package import RealtimeIO

extension WebSocketClient {
    /// A client over the native transport: ``NetworkConnector`` (TCP, TLS for `wss`).
    ///
    /// - Parameter eventLoops: the group whose loops connections take in turn, or one loop
    ///   for all of them (the process default group unless given).
    package convenience init(eventLoops: any EventLoopProvider = EventLoopGroup.shared) {
        self.init(
            eventLoops: eventLoops,
            connector: { endpoint, timeout, loop throws(NetworkError) in
                try await NetworkConnector.connect(to: endpoint, timeout: timeout, on: loop)
            })
    }
}
