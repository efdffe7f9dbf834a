package import Dispatch

/// Work a round of an event loop's jobs hands to Dispatch queues, held until the round ends and
/// then given to each queue in one `async`.
///
/// A turn of the loop runs the jobs its readiness edges made runnable (one per socket with
/// data), in rounds (the jobs those jobs enqueue run in the next); each may hand work to a
/// queue (SocketIO's handlers run on `handleQueue`). One `async` per item makes an idle serial
/// queue wake a Dispatch worker per item; held to the end of the round, the items of one queue
/// go in one `async` and wake it once.
///
/// Sans-I/O: it only collects and groups. Order is kept per queue (items run in the order they
/// were added, one after another, on that queue); queues get their batch in the order they
/// first received an item this round. Nothing is dropped: ``take()`` returns every item added
/// since the last take.
package struct DispatchHandoffBatch {
    /// One queue's items of this round, in order.
    package struct Batch {
        package let queue: DispatchQueue
        package var items: [@Sendable () -> Void]
    }

    private var batches: [Batch] = []

    package init() {}

    /// Whether nothing is held.
    package var isEmpty: Bool { self.batches.isEmpty }

    /// Holds `work` for `queue`, after everything held for it already.
    package mutating func add(_ work: @escaping @Sendable () -> Void, for queue: DispatchQueue) {
        // A turn hands work to a few queues (an app's handle queues): a linear search by
        // identity is cheaper than hashing.
        for index in self.batches.indices where self.batches[index].queue === queue {
            self.batches[index].items.append(work)
            return
        }
        self.batches.append(Batch(queue: queue, items: [work]))
    }

    /// Everything held, one batch per queue, and nothing held any more.
    package mutating func take() -> [Batch] {
        defer { self.batches = [] }
        return self.batches
    }

    /// Runs a batch's items in order (on its queue).
    package static func run(_ items: [@Sendable () -> Void]) {
        for item in items { item() }
    }
}

#if !(canImport(Glibc) && !REALTIME_NO_NATIVE_STACK)
extension EventLoop {
    /// Without the native stack nothing is held: always `false`, and setting it does nothing.
    package static var batchesHandoffs: Bool {
        get { false }
        set {}
    }

    /// Runs `work` on `queue`. Without the native stack a loop has no thread and no turns:
    /// at once, with `queue.async`.
    package func async(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
#endif
