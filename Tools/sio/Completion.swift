import Foundation

/// A value set once, by whichever source finishes first (an ack, a disconnection, the end of
/// stdin), and awaited by one task.
final class Completion<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` and `continuation` are only touched under `lock`.
    private let lock = NSLock()
    private var value: Value?
    private var continuation: CheckedContinuation<Value, Never>?

    /// Sets the value unless one was set; resumes the waiter.
    func finish(_ value: Value) {
        self.lock.lock()
        guard self.value == nil else {
            self.lock.unlock()
            return
        }
        self.value = value
        let continuation = self.continuation
        self.continuation = nil
        self.lock.unlock()
        continuation?.resume(returning: value)
    }

    /// Waits for the value (one waiter).
    func wait() async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            self.lock.lock()
            if let value = self.value {
                self.lock.unlock()
                continuation.resume(returning: value)
            } else {
                self.continuation = continuation
                self.lock.unlock()
            }
        }
    }
}
