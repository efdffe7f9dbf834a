import Dispatch
package import RealtimeIO
package import RealtimeTime

#if !(canImport(Glibc) && !REALTIME_NO_NATIVE_STACK)
import RealtimeSync
#endif

/// Where a manager's timers come from: one source per manager (ack deadlines, reconnect
/// tries, and its engines' heartbeats), so tests can drive time and nothing waits in a task
/// nobody owns.
///
/// A timer's body runs on a thread of the source's choosing (the event loop's for the default
/// source): it must be short and never block; work for user code hops to `handleQueue`.
package protocol SocketTimerSource: Sendable {
    /// The source's current time.
    var now: MonotonicInstant { get }

    /// Runs `body` once at (or shortly after) `deadline`, unless the returned timer is cancelled.
    func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> SocketTimer
}

extension SocketTimerSource {
    /// The longest delay a timer is scheduled for: a huge or infinite timeout means "far
    /// away", not a trap converting it to a `TimeAmount`.
    package static var longestDelay: Double { 100 * 365 * 86_400 }

    /// Runs `body` once after `seconds` (from the source's ``now``), unless the returned timer
    /// is cancelled. A negative or NaN delay fires at once; a delay past ``longestDelay``
    /// (infinity too) is clamped to it.
    package func schedule(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> SocketTimer {
        let clamped = seconds.isNaN ? 0 : min(max(0, seconds), Self.longestDelay)
        return self.schedule(at: self.now + .seconds(clamped), body)
    }
}

/// A scheduled timer; ``cancel()`` stops it (a no-op once it fired).
package struct SocketTimer: Sendable {
    private let cancelBody: @Sendable () -> Void

    package init(cancel: @escaping @Sendable () -> Void) {
        self.cancelBody = cancel
    }

    package func cancel() {
        self.cancelBody()
    }
}

/// The default source: one RealtimeIO event loop's timers on Linux (no extra thread, no extra
/// wake-ups), a global Dispatch queue elsewhere (Apple platforms and the
/// `REALTIME_NO_NATIVE_STACK` configuration, where the loop is unused).
///
/// A timer scheduled on a loop that is shut down, or still pending when it shuts down, never
/// fires: the connections on that loop fail with `.eventLoopShutDown` instead, which is what
/// ends the session.
package struct EventLoopTimerSource: SocketTimerSource {
    /// The source of a manager that was given no loop: the next loop of the process default
    /// group, chosen once.
    package static let shared = EventLoopTimerSource(eventLoop: EventLoopGroup.shared.next())

    /// The loop whose timers this source schedules (the engine's connections' loop).
    package let eventLoop: EventLoop

    package init(eventLoop: EventLoop) {
        self.eventLoop = eventLoop
    }

    package var now: MonotonicInstant { .now }

    package func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> SocketTimer {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        let timer = self.eventLoop.scheduleTimer(at: deadline, body)
        return SocketTimer(cancel: { timer.cancel() })
        #else
        let item = DispatchWorkItem(block: body)
        let delay = MonotonicInstant.now.duration(to: deadline)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay.nonNegativeNanoseconds)), execute: item)
        // `cancel()` is thread-safe; corelibs Dispatch does not mark the item `Sendable`.
        let cancellable = UncheckedSendable(item)
        return SocketTimer(cancel: { cancellable.value.cancel() })
        #endif
    }
}
