#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
import Synchronization
#endif

/// A Boolean read on every log call site and set only when an app changes its logging: a
/// relaxed atomic load, so a log call with logging off takes no lock.
///
/// On Linux it is a `Synchronization.Atomic<Bool>`. On Apple platforms `Atomic` needs
/// iOS 18 / macOS 15, so there the atomic is used when the OS has it and the module's lock
/// (``SocketLock``) otherwise.
final class SocketLogSwitch: Sendable {
    #if canImport(Glibc) || canImport(Musl)
    private let storage: Atomic<Bool>
    #else
    /// An `AtomicStorage` on OSes that have `Atomic`, else `nil`.
    private let atomic: (any Sendable)?
    private let locked: SocketLock<Bool>
    #endif

    init(_ value: Bool) {
        #if canImport(Glibc) || canImport(Musl)
        self.storage = Atomic(value)
        #else
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            self.atomic = AtomicStorage(value)
        } else {
            self.atomic = nil
        }
        self.locked = SocketLock(value)
        #endif
    }

    /// The current value.
    var isOn: Bool {
        #if canImport(Glibc) || canImport(Musl)
        return self.storage.load(ordering: .relaxed)
        #else
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *), let atomic = self.atomic {
            return unsafeDowncast(atomic as AnyObject, to: AtomicStorage.self).value.load(ordering: .relaxed)
        }
        return self.locked.withLock { $0 }
        #endif
    }

    /// Sets the value, visible to every thread's next ``isOn``.
    func set(_ value: Bool) {
        #if canImport(Glibc) || canImport(Musl)
        self.storage.store(value, ordering: .relaxed)
        #else
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *), let atomic = self.atomic {
            unsafeDowncast(atomic as AnyObject, to: AtomicStorage.self).value.store(value, ordering: .relaxed)
        } else {
            self.locked.withLock { $0 = value }
        }
        #endif
    }
}

#if !(canImport(Glibc) || canImport(Musl))
/// The `Atomic` of ``SocketLogSwitch`` on Apple OSes that have it (iOS 18 / macOS 15).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
private final class AtomicStorage: Sendable {
    let value: Atomic<Bool>

    init(_ value: Bool) {
        self.value = Atomic(value)
    }
}
#endif
