/// Carries a non-`Sendable` value (a user callback, an `[Any]` payload) from one thread to
/// another: into a `handleQueue` block, or into the engine's state until the transport send
/// that completes it.
///
/// `@unchecked Sendable` because each box is handed over, not shared: the thread that makes
/// it does not touch the value after giving the box away, and the one receiver reads or runs
/// it (the ack callbacks and completions the socket wraps then run on the manager's serial
/// `handleQueue`, as upstream's contract says; a completion given to `SocketEngine.write`
/// directly runs on the thread that finished the send). The value itself is never accessed
/// from two threads at once.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}
