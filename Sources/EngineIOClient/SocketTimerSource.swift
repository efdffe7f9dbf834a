package import RealtimeIO
package import RealtimeTime

/// Where a manager's timers come from: one source per manager (ack deadlines, reconnect
/// tries, and its engines' heartbeats), so tests can drive time and nothing waits in a task
/// nobody owns.
///
/// The package's one timer protocol, ``TimerSource`` (RealtimeTime), under the name the
/// Socket.IO layers use.
///
/// A timer's body runs on a thread of the source's choosing (the event loop's for the default
/// source): it must be short and never block; work for user code hops to `handleQueue`.
package typealias SocketTimerSource = TimerSource

/// A scheduled timer; ``TimerHandle/cancel()`` stops it (a no-op once it fired).
package typealias SocketTimer = TimerHandle

extension TimerSource {
    /// The longest delay a timer is scheduled for: a huge or infinite timeout means "far
    /// away", not a trap converting it to a `TimeAmount`.
    package static var longestDelay: Double { 100 * 365 * 86_400 }

    /// Runs `body` once after `seconds` (from the source's ``TimerSource/now``), unless the
    /// returned timer is cancelled. A negative or NaN delay fires at once; a delay past
    /// ``longestDelay`` (infinity too) is clamped to it.
    package func schedule(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        let clamped = seconds.isNaN ? 0 : min(max(0, seconds), Self.longestDelay)
        return self.schedule(at: self.now + .seconds(clamped), body)
    }
}

/// The default source of a manager: its event loop's timers (``EventLoop``'s ``TimerSource``
/// conformance: the loop's timer heap on Linux, Dispatch where the native stack is not built).
///
/// A timer scheduled on a loop that is shut down, or still pending when it shuts down, never
/// fires: the connections on that loop fail with `.eventLoopShutDown` instead, which is what
/// ends the session.
package struct EventLoopTimerSource: TimerSource {
    /// The source of a manager that was given no loop: the next loop of the process default
    /// group, chosen once.
    package static let shared = EventLoopTimerSource(eventLoop: EventLoopGroup.shared.next())

    /// The loop whose timers this source schedules (the engine's connections' loop).
    package let eventLoop: EventLoop

    package init(eventLoop: EventLoop) {
        self.eventLoop = eventLoop
    }

    package var now: MonotonicInstant { self.eventLoop.now }

    package func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        self.eventLoop.schedule(at: deadline, body)
    }

    package func scheduleWakeUp(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        self.eventLoop.scheduleWakeUp(at: deadline, body)
    }
}
