#if canImport(Glibc) || canImport(Musl)
import Synchronization
#endif

/// A flag that goes from `false` to `true` once and is read far more often than it is set
/// (a data task's cancellation, checked for every delivered event).
///
/// On Linux it is a `Synchronization.Atomic<Bool>`: a plain load on the read path, which the
/// SSE benchmarks were measured with. `Atomic` needs iOS 18 / macOS 15 on Apple platforms, so
/// there it is the package's one lock (``LockedValue``), which every supported OS has.
package final class OnceFlag: Sendable {
    #if canImport(Glibc) || canImport(Musl)
    private let storage = Atomic<Bool>(false)
    #else
    private let storage = LockedValue(false)
    #endif

    package init() {}

    /// `true` once ``set()`` was called, on any thread.
    package var isSet: Bool {
        #if canImport(Glibc) || canImport(Musl)
        self.storage.load(ordering: .acquiring)
        #else
        self.storage.withLock { $0 }
        #endif
    }

    /// Sets the flag (idempotent).
    package func set() {
        #if canImport(Glibc) || canImport(Musl)
        self.storage.store(true, ordering: .releasing)
        #else
        self.storage.withLock { $0 = true }
        #endif
    }
}
