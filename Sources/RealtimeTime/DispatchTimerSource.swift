package import Dispatch
import RealtimeSync

/// A ``TimerSource`` over a Dispatch queue's timers: the source where there is no event loop
/// (Apple platforms and the `REALTIME_NO_NATIVE_STACK` configuration, through RealtimeIO's
/// stand-in `EventLoop`, and ``global``).
///
/// Each timer is a `DispatchWorkItem` given to `asyncAfter`; cancelling it cancels the work
/// item, so its body never starts. The queue never stops, so a wake-up is an ordinary timer.
/// This is the package's one use of `asyncAfter`.
package struct DispatchTimerSource: TimerSource {
    /// Timers on the global concurrent queue (default quality of service).
    package static let global = DispatchTimerSource(queue: .global())

    /// The queue the bodies run on.
    package let queue: DispatchQueue

    package init(queue: DispatchQueue) {
        self.queue = queue
    }

    package var now: MonotonicInstant { .now }

    package func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        let item = DispatchWorkItem(block: body)
        self.queue.asyncAfter(deadline: Self.dispatchTime(after: MonotonicInstant.now.duration(to: deadline)), execute: item)
        // `cancel()` is thread-safe; corelibs Dispatch does not mark the item `Sendable`.
        let cancellable = UncheckedSendable(item)
        return TimerHandle(cancel: { cancellable.value.cancel() })
    }

    /// The Dispatch time `delay` from now, saturating: `Int` nanoseconds would cap a delay at
    /// about 2 s on 32-bit watchOS, so the uptime is added as `UInt64`.
    static func dispatchTime(after delay: TimeAmount) -> DispatchTime {
        let (sum, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(delay.nonNegativeNanoseconds)
        return overflow ? .distantFuture : DispatchTime(uptimeNanoseconds: sum)
    }
}
