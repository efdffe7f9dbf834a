extension Task where Success == Never, Failure == Never {
    /// Suspends the task for `amount` (at once for zero or less), without blocking a thread.
    ///
    /// `Task.sleep(for:)` takes a `Duration` and needs iOS 16; this is the same wait through
    /// `Task.sleep(nanoseconds:)`, which every supported platform has.
    ///
    /// For tests and tools (a pause between steps). The libraries' timeouts and delays are
    /// timers of a ``TimerSource`` (their connection's event loop, or Dispatch), and wait on
    /// one with ``TimerSource/sleep(until:)``.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before or during the wait.
    package static func sleep(_ amount: TimeAmount) async throws {
        try await Task<Never, Never>.sleep(nanoseconds: amount.nonNegativeNanoseconds)
    }

    /// Suspends the task until `deadline` on the monotonic clock (for tests and tools; see
    /// ``sleep(_:)``).
    ///
    /// - Throws: `CancellationError` if the task is cancelled before or during the wait.
    package static func sleep(until deadline: MonotonicInstant) async throws {
        try await Task<Never, Never>.sleep(nanoseconds: (deadline - .now).nonNegativeNanoseconds)
    }
}
