/// Where timers come from: the package's one timer mechanism, in every layer.
///
/// A source has a clock (``now``) and runs a callback at a deadline until the returned
/// ``TimerHandle`` is cancelled (``schedule(at:_:)``). Waiting in a task is built on those
/// two, once, for every source: ``sleep(until:)`` and ``sleep(for:)``.
///
/// Three sources implement it:
/// - an event loop's timers (RealtimeIO's `EventLoop`, on the native stack): a timer is an entry
///   in the loop's timer heap and runs on the loop's thread, so a connection's timers stay on
///   its loop, with no extra thread or wake-up;
/// - ``DispatchTimerSource``: a Dispatch queue's timers, where there is no event loop (Apple
///   platforms and the `REALTIME_NO_NATIVE_STACK` configuration, where RealtimeIO's `EventLoop`
///   is a stand-in that forwards to it);
/// - `ManualTimerSource` (TestSupport): a clock that moves only when a test advances it.
///
/// ```swift
/// let timer = source.schedule(at: source.now + .seconds(20)) { connection.close() }
/// // ... the answer arrived in time:
/// timer.cancel()
///
/// try await source.sleep(for: .milliseconds(250))
/// ```
///
/// - Important: A callback runs on a thread of the source's choosing (the loop's thread, a
///   Dispatch worker, or the thread that advances a manual clock); it must be short and never
///   block. Work for user code hops elsewhere.
package protocol TimerSource: Sendable {
    /// The source's current time: the deadlines it is given are on this clock.
    var now: MonotonicInstant { get }

    /// Runs `body` once at (or shortly after) `deadline`, unless the returned handle is
    /// cancelled first. A deadline already past runs `body` soon, never inside this call
    /// (except on a test's `ManualTimerSource` advanced from inside a callback).
    ///
    /// A source that stops for good (an event loop that shuts down) drops its pending timers:
    /// their bodies never run, since whatever they guard fails on its own then.
    func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle

    /// Like ``schedule(at:_:)``, but `body` also runs (early) when the source stops for good
    /// before `deadline`, or at once if it has stopped already: a wake-up, whose only job is to
    /// end a wait, which must not outlive its source. ``sleep(until:)`` schedules its timer
    /// through it. The default is ``schedule(at:_:)`` (a source that never stops).
    func scheduleWakeUp(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle
}

extension TimerSource {
    package func scheduleWakeUp(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        self.schedule(at: deadline, body)
    }
}

/// What a source's timer is underneath: something that can be cancelled from any thread.
package protocol CancellableTimer: Sendable {
    /// Stops the timer; a no-op once it fired, was cancelled, or its source stopped.
    func cancel()
}

/// A scheduled timer; ``cancel()`` stops it (a no-op once it fired).
///
/// Cancelling is thread-safe and idempotent. A cancelled timer's body never starts; a body that
/// already started when ``cancel()`` is called runs to its end (cancel before reading what the
/// timer guards, or check it under the owner's lock, as the callers do).
package struct TimerHandle: Sendable {
    private let timer: any CancellableTimer

    /// The handle of a source's timer (an event loop's fits the existential's inline buffer:
    /// no allocation).
    package init(_ timer: some CancellableTimer) {
        self.timer = timer
    }

    /// A handle whose cancellation runs `cancel`.
    package init(cancel: @escaping @Sendable () -> Void) {
        self.timer = ClosureTimer(cancelBody: cancel)
    }

    package func cancel() {
        self.timer.cancel()
    }
}

/// A handle's cancellation given as a closure (tests' sources, Dispatch work items).
private struct ClosureTimer: CancellableTimer {
    let cancelBody: @Sendable () -> Void

    func cancel() {
        self.cancelBody()
    }
}
