#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the monotonic clock: the package's instant type, in every layer.
///
/// It stands in for `ContinuousClock.Instant`, which needs iOS 16 / macOS 13, and reads the
/// same clock: `CLOCK_BOOTTIME` on Linux and `CLOCK_MONOTONIC_RAW` on Apple platforms, both
/// steady and counting while the device sleeps, so a heartbeat or a reconnection delay measured
/// across a suspension sees the real time that passed. Modelled on swift-nio's `NIODeadline`.
///
/// Sans-I/O machines never read it: they take `now:` as an input. Only the drivers call
/// ``now``.
package struct MonotonicInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin (boot).
    package var nanosecondsSinceOrigin: Int64

    package init(nanosecondsSinceOrigin: Int64) {
        self.nanosecondsSinceOrigin = nanosecondsSinceOrigin
    }

    /// The current instant.
    package static var now: MonotonicInstant {
        MonotonicInstant(nanosecondsSinceOrigin: readClock())
    }

    /// An instant no deadline reaches.
    package static let distantFuture = MonotonicInstant(nanosecondsSinceOrigin: .max)

    static func readClock() -> Int64 {
        #if canImport(Darwin)
        return Int64(clamping: clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW))
        #else
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
        #endif
    }

    /// The span from this instant to `other` (negative when `other` is earlier).
    package func duration(to other: MonotonicInstant) -> TimeAmount {
        other - self
    }

    package func advanced(by amount: TimeAmount) -> MonotonicInstant {
        self + amount
    }

    package var description: String { "MonotonicInstant(\(self.nanosecondsSinceOrigin) ns)" }

    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanosecondsSinceOrigin < rhs.nanosecondsSinceOrigin
    }

    package static func + (lhs: MonotonicInstant, rhs: TimeAmount) -> MonotonicInstant {
        MonotonicInstant(nanosecondsSinceOrigin: (TimeAmount(nanoseconds: lhs.nanosecondsSinceOrigin) + rhs).nanoseconds)
    }

    package static func - (lhs: MonotonicInstant, rhs: TimeAmount) -> MonotonicInstant {
        MonotonicInstant(nanosecondsSinceOrigin: (TimeAmount(nanoseconds: lhs.nanosecondsSinceOrigin) - rhs).nanoseconds)
    }

    package static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> TimeAmount {
        TimeAmount(nanoseconds: lhs.nanosecondsSinceOrigin) - TimeAmount(nanoseconds: rhs.nanosecondsSinceOrigin)
    }

    package static func += (lhs: inout MonotonicInstant, rhs: TimeAmount) {
        lhs = lhs + rhs
    }
}
