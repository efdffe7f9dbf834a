import Foundation
import RealtimeTime
import Testing

@testable import EventSource

/// The connection decisions, driven step by step with explicit times and jitter.
@Suite struct EventSourceStateMachineTests {
    private let start = MonotonicInstant.now

    private func policy(maximumAttempts: Int? = nil, jitter: Double = 0) -> EventSource.ReconnectionPolicy {
        .exponentialBackoff(
            initialDelay: 1, maximumDelay: 10, multiplier: 2, jitter: jitter,
            maximumAttempts: maximumAttempts, healthyConnectionInterval: 30)
    }

    @Test func heads() {
        for (status, type, expected) in [
            (200, "text/event-stream", EventSourceStateMachine.HeadDecision.open),
            (200, "text/event-stream;charset=utf-8", .open),
            (200, "text/plain", .fail(statusCode: 200)),
            (200, nil, .fail(statusCode: 200)),
            (204, nil, .close),
            (201, "text/event-stream", .fail(statusCode: 201)),
            (500, "text/event-stream", .fail(statusCode: 500)),
        ] as [(Int, String?, EventSourceStateMachine.HeadDecision)] {
            var machine = EventSourceStateMachine(policy: self.policy())
            machine.start()
            #expect(machine.readyState == .connecting)
            #expect(machine.receivedHead(status: status, contentType: type, at: self.start) == expected)
            #expect(machine.readyState == (expected == .open ? .open : .closed))
        }
    }

    @Test func disabledPolicyClosesOnEveryEnd() {
        var machine = EventSourceStateMachine(policy: .disabled)
        machine.start()
        _ = machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start)
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .close)
        #expect(machine.readyState == .closed)
    }

    @Test func backoffGrowsIsCappedAndResetsAfterAHealthyConnection() {
        var machine = EventSourceStateMachine(policy: self.policy())
        machine.start()
        var now = self.start
        // Connection attempts that fail at once: 1 s, 2 s, 4 s, 8 s, then capped at 10 s.
        for expected in [1, 2, 4, 8, 10, 10] {
            #expect(
                machine.connectionEnded(failed: true, at: now, jitterUnit: 0)
                    == .reconnect(after: .seconds(expected), attempt: machine.failedAttempts))
            #expect(machine.readyState == .connecting)
            machine.reconnect()
        }
        // A connection open for 30 s resets the count: the next delay is the base again.
        _ = machine.receivedHead(status: 200, contentType: "text/event-stream", at: now)
        now += .seconds(31)
        #expect(machine.connectionEnded(failed: false, at: now, jitterUnit: 0) == .reconnect(after: .seconds(1), attempt: 1))
        // A short-lived one does not.
        machine.reconnect()
        _ = machine.receivedHead(status: 200, contentType: "text/event-stream", at: now)
        now += .seconds(1)
        #expect(machine.connectionEnded(failed: false, at: now, jitterUnit: 0) == .reconnect(after: .seconds(2), attempt: 2))
    }

    @Test func serverRetryIsTheBaseDelay() {
        var machine = EventSourceStateMachine(policy: self.policy())
        machine.start()
        _ = machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start)
        machine.receivedRetry(milliseconds: 250)
        #expect(
            machine.connectionEnded(failed: false, at: self.start, jitterUnit: 0)
                == .reconnect(after: .milliseconds(250), attempt: 1))
        // A hostile retry is still capped by the policy.
        machine.reconnect()
        machine.receivedRetry(milliseconds: Int.max)
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .reconnect(after: .seconds(10), attempt: 2))
    }

    @Test func jitterRemovesUpToItsFraction() {
        let machine = EventSourceStateMachine(policy: self.policy(jitter: 0.5))
        #expect(machine.delay(attempt: 1, jitterUnit: 0) == .seconds(1))
        #expect(machine.delay(attempt: 1, jitterUnit: 0.5) == .milliseconds(750))
        #expect(machine.delay(attempt: 2, jitterUnit: 0.999_999) == .milliseconds(1000))
    }

    @Test func attemptsAreCapped() {
        var machine = EventSourceStateMachine(policy: self.policy(maximumAttempts: 2))
        machine.start()
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .reconnect(after: .seconds(1), attempt: 1))
        machine.reconnect()
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .reconnect(after: .seconds(2), attempt: 2))
        machine.reconnect()
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .close)
        #expect(machine.readyState == .closed)
    }

    @Test func endOfStreamWithoutReconnectionAfterItCloses() {
        var policy = self.policy()
        policy.reconnectsAfterEndOfStream = false
        var machine = EventSourceStateMachine(policy: policy)
        machine.start()
        _ = machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start)
        #expect(machine.connectionEnded(failed: false, at: self.start, jitterUnit: 0) == .close)
    }

    @Test func closedMachineStaysClosed() {
        var machine = EventSourceStateMachine(policy: self.policy())
        machine.start()
        machine.close()
        #expect(machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start) == .close)
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .close)
        #expect(machine.readyState == .closed)
    }
}

/// Restart on demand (``EventSource/DataTask/restart()``), step by step.
@Suite struct EventSourceStateMachineRestartTests {
    private let start = MonotonicInstant.now
    private let policy = EventSource.ReconnectionPolicy.exponentialBackoff(
        initialDelay: 1, maximumDelay: 10, jitter: 0,
        maximumAttempts: 3)

    @Test func restartBeforeTheFirstConnectionOrAfterCloseDoesNothing() {
        var machine = EventSourceStateMachine(policy: self.policy)
        #expect(machine.requestRestart() == false)
        #expect(machine.beginRestart() == nil)
        #expect(machine.readyState == .none)
        machine.start()
        machine.close()
        #expect(machine.requestRestart() == false)
        #expect(machine.beginRestart() == nil)
        #expect(machine.readyState == .closed)
    }

    @Test func restartOfAnOpenConnectionReconnectsAsAttemptOne() {
        var machine = EventSourceStateMachine(policy: self.policy)
        machine.start()
        #expect(machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start) == .open)
        #expect(machine.requestRestart() == true)
        #expect(machine.restartRequested)
        // Still open until the driver drops the connection.
        #expect(machine.readyState == .open)
        #expect(machine.beginRestart() == 1)
        #expect(!machine.restartRequested)
        #expect(machine.readyState == .connecting)
        #expect(machine.beginRestart() == nil)
        #expect(machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start) == .open)
    }

    @Test func restartEndsAWaitAndStartsANewCountOfFailures() {
        var machine = EventSourceStateMachine(policy: self.policy)
        machine.start()
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .reconnect(after: .seconds(1), attempt: 1))
        machine.reconnect()
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .reconnect(after: .seconds(2), attempt: 2))
        #expect(machine.failedAttempts == 2)
        #expect(machine.requestRestart() == true)
        #expect(machine.beginRestart() == 1)
        #expect(machine.failedAttempts == 0)
        // The restarted connection fails: the policy's first delay again, not the third.
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .reconnect(after: .seconds(1), attempt: 1))
    }

    @Test func restartWithTheDisabledPolicyConnectsOnceMore() {
        var machine = EventSourceStateMachine(policy: .disabled)
        machine.start()
        _ = machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start)
        #expect(machine.requestRestart() == true)
        #expect(machine.beginRestart() == 1)
        #expect(machine.receivedHead(status: 200, contentType: "text/event-stream", at: self.start) == .open)
        #expect(machine.connectionEnded(failed: true, at: self.start, jitterUnit: 0) == .close)
    }

    @Test func closeDropsAPendingRestart() {
        var machine = EventSourceStateMachine(policy: self.policy)
        machine.start()
        #expect(machine.requestRestart() == true)
        machine.close()
        #expect(!machine.restartRequested)
        #expect(machine.beginRestart() == nil)
        #expect(machine.readyState == .closed)
    }
}
