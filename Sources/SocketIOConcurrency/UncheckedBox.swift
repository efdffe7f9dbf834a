/// Carries a non-`Sendable` socket.io-client-swift value (`[Any]` items, `SocketData` items,
/// a connect payload) into a `@Sendable` closure.
struct UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: the boxed values are immutable Foundation/Swift values handed over once
    // (captured when the operation starts, read once when it runs); no two threads use them
    // at the same time.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
