package import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
/// A loop is a ``TimerSource``: its timers are entries in its ``TimerHeap``, run on its thread
/// (the connection deadlines of this module schedule them the same way, through
/// ``EventLoop/scheduleTimer(at:onShutdown:_:)``).
///
/// A plain timer still pending when the loop shuts down is dropped (the loop fails its
/// connections with `.eventLoopShutDown`, which is what ends their sessions); a wake-up
/// (``scheduleWakeUp(at:_:)``, what ``TimerSource/sleep(until:)`` uses) runs then instead, or at
/// once on a loop already shut down, so no wait outlives its loop.
extension EventLoop: TimerSource {
    package var now: MonotonicInstant { .now }

    package func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        TimerHandle(self.scheduleTimer(at: deadline, body))
    }

    package func scheduleWakeUp(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        TimerHandle(self.scheduleTimer(at: deadline, onShutdown: { _ in body() }, body))
    }
}

extension EventLoop.ScheduledTimer: CancellableTimer {}
#else
/// Where the native stack is not built, a loop has no thread: its timers are Dispatch's
/// (``DispatchTimerSource/global``), so a component asks its loop for timers on every platform.
extension EventLoop: TimerSource {
    package var now: MonotonicInstant { .now }

    package func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        DispatchTimerSource.global.schedule(at: deadline, body)
    }
}
#endif
