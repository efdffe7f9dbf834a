import RealtimeIO

extension SocketManager {
    /// The executor of the event loop this manager's connections live on, for a task that
    /// consumes its sockets there; `nil` when they do not run on the package's own transport
    /// (Apple platforms, and `transport: .urlSession`: URLSession reads on threads of its own).
    ///
    /// By default an awaiting task (an `emitWithAck`, a `for await` over a socket's events)
    /// runs on Swift's global executor, so each value the connection's loop delivers costs a
    /// thread wake-up. A task that prefers this executor runs on the loop itself: the loop
    /// resumes it right after the read that settled its wait, and its next emit is written on
    /// the same thread, so a round trip costs one wake-up instead of two.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(manager.taskExecutor) {
    ///     for try await event in socket.on("price") {
    ///         update(event)          // short and non-blocking: it runs on the loop
    ///     }
    /// }
    /// ```
    ///
    /// - Important: Code running on the loop delays every connection of that loop (with
    ///   `.eventLoopGroup`, the other managers given the same loop too). Use it only for short,
    ///   non-blocking work; never block, sleep or compute at length there. Callback handlers
    ///   are not affected: they run on `handleQueue`, as upstream's contract says.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var taskExecutor: (any TaskExecutor)? {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        return self.transport.runsOnEventLoops ? self.eventLoop : nil
        #else
        return nil
        #endif
    }
}
