import Dispatch
import Testing

@testable import SocketIO

/// The switch every log call site reads: an atomic Boolean (no lock while logging is off).
@Suite struct SocketLogSwitchTests {
    @Test func holdsTheLastValueSet() {
        let flag = SocketLogSwitch(false)
        #expect(!flag.isOn)
        flag.set(true)
        #expect(flag.isOn)
        flag.set(false)
        #expect(!flag.isOn)
    }

    /// Writers and readers on several threads at once: no access is a data race (what this test
    /// is for: ThreadSanitizer checks the accesses in `make tsan-ci`; a plain run checks only that
    /// nothing traps), and once the writers are done, the last value set is the one read.
    /// (A Boolean read can only be a value that was set, so no read is checked in between.)
    @Test func concurrentSetsAndReadsAreRaceFreeAndTheLastSetWins() {
        let flag = SocketLogSwitch(false)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for round in 0..<1_000 {
                if index % 2 == 0 { flag.set(round % 2 == 0) } else { _ = flag.isOn }
            }
        }
        #expect(!flag.isOn, "every writer's last set (round 999) was false")
        flag.set(true)
        #expect(flag.isOn)
    }

    /// A `DefaultSocketLogger` prints only while its `log` is on; its message is not even built
    /// while it is off.
    @Test func defaultLoggerBuildsNoMessageWhileOff() {
        let logger = DefaultSocketLogger()
        var built = 0
        func message() -> String {
            built += 1
            return "m"
        }
        logger.log(message(), type: "T")
        logger.error(message(), type: "T")
        #expect(built == 0)
        logger.log = true
        #expect(logger.log)
        logger.log = false
        #expect(!logger.log)
    }
}
