extension SocketIOClient {
    /// Waits while the engine's outbound buffers are more than half full
    /// (``SocketEngine/waitForOutboundRoom()``), so a writer that can wait (SocketIOConcurrency's
    /// async `emit`) does not run into the bound and get refused. Returns at once for an engine
    /// that is not a ``SocketEngine`` (an app's own `SocketEngineSpec`) or when there is room;
    /// returns early when the task is cancelled (the caller checks).
    package func waitForOutboundRoom() async {
        guard let engine = self.manager?.engine as? SocketEngine else { return }
        await engine.waitForOutboundRoom()
    }
}
