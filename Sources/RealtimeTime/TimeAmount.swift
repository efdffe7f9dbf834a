/// A span of time in whole nanoseconds: the package's duration type, in every layer.
///
/// It stands in for the standard library's `Duration`, which needs iOS 16 / macOS 13, so that
/// the package runs on the seeds' floor (iOS 13 / macOS 10.15). It is modelled on swift-nio's
/// `TimeAmount`: one `Int64` of nanoseconds (about ±292 years), cheaper to add and compare than
/// `Duration`'s 128 bits of attoseconds.
///
/// Every constructor and operator saturates instead of trapping: a hostile `retry:` field or a
/// caller's `.infinity` timeout becomes "as far as a `TimeAmount` reaches", never a crash.
///
/// ```swift
/// let timeout = TimeAmount.seconds(20) + .milliseconds(500)
/// try await eventLoop.sleep(for: timeout)
/// ```
package struct TimeAmount: Sendable, Hashable, Comparable, AdditiveArithmetic, CustomStringConvertible {
    /// The span in nanoseconds; negative spans are allowed (a deadline already past).
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    package static let zero = TimeAmount(nanoseconds: 0)
    /// The longest span the type holds (about 292 years).
    package static let max = TimeAmount(nanoseconds: .max)

    // MARK: Constructors

    package static func nanoseconds<T: BinaryInteger>(_ value: T) -> TimeAmount {
        TimeAmount(nanoseconds: Int64(clamping: value))
    }

    package static func microseconds<T: BinaryInteger>(_ value: T) -> TimeAmount {
        .scaled(value, by: 1_000)
    }

    package static func milliseconds<T: BinaryInteger>(_ value: T) -> TimeAmount {
        .scaled(value, by: 1_000_000)
    }

    package static func seconds<T: BinaryInteger>(_ value: T) -> TimeAmount {
        .scaled(value, by: 1_000_000_000)
    }

    /// Fractional milliseconds; NaN is zero, ±infinity saturates.
    package static func milliseconds(_ value: Double) -> TimeAmount {
        .fromDouble(value * 1e6)
    }

    /// Fractional seconds (a `TimeInterval`); NaN is zero, ±infinity saturates.
    package static func seconds(_ value: Double) -> TimeAmount {
        .fromDouble(value * 1e9)
    }

    static func scaled<T: BinaryInteger>(_ value: T, by unit: Int64) -> TimeAmount {
        let (product, overflow) = Int64(clamping: value).multipliedReportingOverflow(by: unit)
        guard overflow else { return TimeAmount(nanoseconds: product) }
        return TimeAmount(nanoseconds: value < 0 ? .min : .max)
    }

    static func fromDouble(_ nanoseconds: Double) -> TimeAmount {
        if nanoseconds.isNaN { return .zero }
        if nanoseconds >= 9.2e18 { return TimeAmount(nanoseconds: .max) }
        if nanoseconds <= -9.2e18 { return TimeAmount(nanoseconds: .min) }
        return TimeAmount(nanoseconds: Int64(nanoseconds.rounded()))
    }

    // MARK: Conversions

    /// The span in seconds, as Foundation's `TimeInterval` counts them.
    package var seconds: Double { Double(self.nanoseconds) / 1e9 }

    /// Whole milliseconds, rounded up (a timer never fires early for lack of precision).
    package var millisecondsRoundedUp: Int64 {
        let (quotient, remainder) = self.nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder > 0 ? quotient + 1 : quotient
    }

    /// Nanoseconds for `Task.sleep(nanoseconds:)` and Dispatch: a negative span is zero.
    package var nonNegativeNanoseconds: UInt64 { UInt64(Swift.max(0, self.nanoseconds)) }

    /// "1.5 seconds", as `Duration` prints.
    package var description: String { "\(self.seconds) seconds" }

    // MARK: Arithmetic (saturating)

    package static func < (lhs: TimeAmount, rhs: TimeAmount) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    package static func + (lhs: TimeAmount, rhs: TimeAmount) -> TimeAmount {
        TimeAmount(nanoseconds: saturating(lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds), sign: rhs.nanoseconds))
    }

    package static func - (lhs: TimeAmount, rhs: TimeAmount) -> TimeAmount {
        TimeAmount(nanoseconds: saturating(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), sign: -rhs.nanoseconds))
    }

    package static prefix func - (amount: TimeAmount) -> TimeAmount {
        TimeAmount(nanoseconds: amount.nanoseconds == .min ? .max : -amount.nanoseconds)
    }

    package static func * <T: BinaryInteger>(lhs: TimeAmount, rhs: T) -> TimeAmount {
        let factor = Int64(clamping: rhs)
        let (product, overflow) = lhs.nanoseconds.multipliedReportingOverflow(by: factor)
        guard overflow else { return TimeAmount(nanoseconds: product) }
        return TimeAmount(nanoseconds: (lhs.nanoseconds < 0) != (factor < 0) ? .min : .max)
    }

    package static func * (lhs: TimeAmount, rhs: Double) -> TimeAmount {
        .fromDouble(Double(lhs.nanoseconds) * rhs)
    }

    package static func / <T: BinaryInteger>(lhs: TimeAmount, rhs: T) -> TimeAmount {
        TimeAmount(nanoseconds: lhs.nanoseconds / Int64(clamping: rhs))
    }

    /// The ratio of two spans.
    package static func / (lhs: TimeAmount, rhs: TimeAmount) -> Double {
        Double(lhs.nanoseconds) / Double(rhs.nanoseconds)
    }

    /// The result of an overflowing addition, clamped towards the side `sign` pushed it.
    static func saturating(_ result: (partialValue: Int64, overflow: Bool), sign: Int64) -> Int64 {
        guard result.overflow else { return result.partialValue }
        return sign < 0 ? .min : .max
    }
}
