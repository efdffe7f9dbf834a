import RealtimeSync
import Testing

@Suite struct OnceFlagTests {
    @Test func startsUnsetAndStaysSet() {
        let flag = OnceFlag()
        #expect(!flag.isSet)
        flag.set()
        #expect(flag.isSet)
        flag.set()
        #expect(flag.isSet)
    }

    /// Set on one thread, seen on others (ThreadSanitizer checks the publication in `make tsan-ci`).
    @Test func aSetIsSeenByConcurrentReaders() async {
        let flag = OnceFlag()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    while !flag.isSet { await Task.yield() }
                    return flag.isSet
                }
            }
            group.addTask {
                flag.set()
                return true
            }
            for await seen in group { #expect(seen) }
        }
    }
}
