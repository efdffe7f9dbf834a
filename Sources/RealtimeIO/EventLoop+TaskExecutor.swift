#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
/// The loop as an opt-in task executor.
///
/// A task that runs `withTaskExecutorPreference(loop) { ... }` executes on the loop
/// thread. Its I/O continuations are then resumed in place: a readiness event queues the task's
/// job on the loop itself, which runs it right after the current batch of events, instead of
/// waking a thread of the cooperative pool (one thread wake-up per round trip instead of two).
///
/// ```swift
/// let loop = group.next()
/// let stream = try await NetworkConnector.connect(to: endpoint, timeout: .seconds(10), on: loop)
/// try await withTaskExecutorPreference(loop) {
///     try await stream.write(request)
///     let reply = try await stream.read(maxLength: 65_536)
/// }
/// ```
///
/// - Important: Code running on the loop thread delays every other connection's readiness
///   handling. Use the preference only for short, non-blocking protocol code (framing, parsing);
///   never for blocking calls or heavy computation. Prefer the loop a connection lives on.
///   Once the loop's thread ended, its jobs run on the global executor.
extension EventLoop: TaskExecutor {
    package func enqueue(_ job: consuming ExecutorJob) {
        self.enqueueJob(UnownedJob(job))
    }

    package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
#endif
