#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Synchronization
#else
import RealtimeSync
#endif

/// The event loops the native transport's connections run on: a fixed set of threads, each
/// waiting on one `epoll` instance, and the resolver threads their host names are looked up on.
///
/// Each connection lives on one loop of its group, chosen round-robin when it opens: its socket
/// is registered there, its timers (connect deadline, idle timeout, heartbeats) are that loop's,
/// and the short protocol tasks of the layers above prefer that loop's thread. A process that
/// never names a group uses ``shared``, made on first use with one loop per online core.
///
/// ```swift
/// let group = EventLoopGroup(loopCount: 2)
/// var eventSource = EventSource()
/// eventSource.eventLoopGroup = group
/// // ... later, when no connection should live on it any more:
/// await group.shutdown()
/// ```
///
/// - Important: It applies to the native transport (Linux). URLSession (Apple platforms, and
///   `.urlSession` anywhere) schedules its own work and ignores the group; where the native
///   transport is not built, a group starts no thread at all.
public final class EventLoopGroup: Sendable {
    /// The process default: one loop per online core, made on first use, never shut down.
    public static var shared: EventLoopGroup { Self.processDefault }

    private static let processDefault = EventLoopGroup(loopCount: defaultLoopCount, isProcessDefault: true)

    /// One loop per online core (`sysconf(_SC_NPROCESSORS_ONLN)`), at least one.
    public static var defaultLoopCount: Int {
        #if canImport(Glibc) || canImport(Darwin)
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }

    /// How many loops (threads) the group runs.
    public let loopCount: Int
    private let isProcessDefault: Bool

    #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
    /// The group's loops, in the order ``next()`` hands them out.
    package let loops: [EventLoop]
    /// The group's resolver threads, shared by its loops.
    package let resolver: NameResolver
    private let cursor = Atomic<Int>(0)
    /// Numbers the groups of the process, for thread names (`RTIO-<group>-<loop>`).
    private static let groupCounter = Atomic<Int>(0)
    #else
    private let loops: [EventLoop]
    private let cursor = LockedValue(0)
    #endif

    /// A group with one loop per online core (``defaultLoopCount``).
    public convenience init() {
        self.init(loopCount: Self.defaultLoopCount)
    }

    /// A group of `loopCount` loops (at least one), each with its own thread, started now.
    ///
    /// - Parameter loopCount: how many loops; a value below 1 makes one.
    public convenience init(loopCount: Int) {
        self.init(loopCount: loopCount, isProcessDefault: false)
    }

    private init(loopCount: Int, isProcessDefault: Bool) {
        self.loopCount = max(1, loopCount)
        self.isProcessDefault = isProcessDefault
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        let number = Self.groupCounter.add(1, ordering: .relaxed).newValue
        let resolver = NameResolver(namePrefix: "RTIO-\(number)-")
        self.resolver = resolver
        self.loops = (0..<self.loopCount).map { index in
            EventLoop(name: "RTIO-\(number)-\(index)", resolver: resolver)
        }
        #else
        self.loops = (0..<self.loopCount).map { _ in EventLoop() }
        #endif
    }

    /// The loop for the next connection: the group's loops in turn.
    package func next() -> EventLoop {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        let turn = self.cursor.add(1, ordering: .relaxed).oldValue
        #else
        let turn = self.cursor.withLock { value -> Int in
            defer { value &+= 1 }
            return value
        }
        #endif
        return self.loops[Int(UInt(bitPattern: turn) % UInt(self.loops.count))]
    }

    #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
    /// Descriptors registered on all of the group's loops (for leak checks in tests).
    package var registeredDescriptorCount: Int {
        self.loops.reduce(0) { $0 + $1.registeredDescriptorCount }
    }

    /// Timers pending on all of the group's loops (for leak checks in tests).
    package var pendingTimerCount: Int {
        self.loops.reduce(0) { $0 + $1.pendingTimerCount }
    }
    #endif

    /// Shuts the group down and returns once its threads have ended.
    ///
    /// Every loop's thread ends after its current turn; connections on the group fail what
    /// waits (reads, writes, connects, name lookups, timers) with a network error that says the
    /// event loop was shut down, and so does every later connection attempt on the group. The
    /// resolver threads end after the lookup they are in, if any. Idempotent. The process
    /// default (``shared``) ignores it: it serves every API that was given no group.
    ///
    /// - Important: Never blocks a thread: it suspends until the threads are gone.
    public func shutdown() async {
        guard !self.isProcessDefault else { return }
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        self.resolver.shutdown()
        for loop in self.loops { loop.shutdown() }
        for loop in self.loops { await loop.waitUntilStopped() }
        #endif
    }
}

/// What hands out the loop for a new connection: a group (round-robin) or one loop (always
/// itself, to keep a client's connections together).
package protocol EventLoopProvider: Sendable {
    func next() -> EventLoop
}

extension EventLoopGroup: EventLoopProvider {}

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
extension EventLoop: EventLoopProvider {
    /// The loop itself.
    package func next() -> EventLoop { self }
}
#else
/// Where the native transport is not built (Apple platforms, `REALTIME_NO_NATIVE_STACK`), a
/// loop is only a name: no thread, no timers. It exists so that the layers above keep one
/// shape on every platform (a client is given a group or a loop either way).
package final class EventLoop: EventLoopProvider {
    package init() {}

    /// The loop itself.
    package func next() -> EventLoop { self }
}
#endif
