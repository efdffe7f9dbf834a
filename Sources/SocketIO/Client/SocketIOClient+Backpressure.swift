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

    /// A stream of SocketIOConcurrency over this socket fell behind its bound (`true`), or
    /// caught up or ended (`false`): the manager's engine stops reading while any stream is
    /// behind (`InboundBacklog`). Nothing to do in a core without a manager half.
    package func consumer(behind: Bool) {
        self.core.consumer(behind: behind)
    }

    /// A stream of SocketIOConcurrency over this socket reached its hard bound (`true`), or
    /// drained or ended after that (`false`): the manager's engine stops reading while any
    /// stream is that far behind, even while an awaited ack is outstanding (`InboundBacklog`).
    package func consumer(farBehind: Bool) {
        self.core.consumer(farBehind: farBehind)
    }

    /// An awaited ack of SocketIOConcurrency was asked for (`true`) or settled (`false`): while
    /// one is outstanding, streams that are behind do not stop the reading its answer needs.
    package func ack(awaited: Bool) {
        self.core.ack(awaited: awaited)
    }
}
