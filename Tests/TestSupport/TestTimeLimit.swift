public import Testing

/// A time limit for a suite or test that compiles at the package's deployment floor.
///
/// Swift Testing's `.timeLimit(_:)` takes a `Duration` and needs macOS 13 / iOS 16. Where the
/// tests run (Linux, and macOS 13 or later) this is that trait; on an older system it is a
/// trait that changes nothing, since nothing there can express the limit.
///
/// ```swift
/// @Suite(.serialized, TestTimeLimit.minutes(1)) struct ProxyLoopbackTests { ... }
/// ```
public enum TestTimeLimit {
    public static func minutes(_ minutes: Int) -> any SuiteTrait & TestTrait {
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
            return TimeLimitTrait.timeLimit(.minutes(minutes))
        }
        return ConditionTrait.enabled(if: true)
    }
}
