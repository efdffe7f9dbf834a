import Dispatch
import EngineIOClient
import Foundation
import RealtimeTime
import Testing

@testable import SocketIO

/// A timer source that starts a test's step on another thread *while* a timer is being armed
/// (inside `schedule`, which the socket calls in the critical section that changed its ack
/// table), and keeps every body it was given, cancelled or not, so a test can also fire a
/// replaced timer late.
final class InterleavingTimerSource: SocketTimerSource, @unchecked Sendable {
    // `@unchecked Sendable`: all state is behind `lock`.
    private struct Scheduled {
        var id: Int
        var deadline: MonotonicInstant
        var body: @Sendable () -> Void
        var cancelled = false
    }

    private struct State {
        var now = MonotonicInstant.now
        var scheduled: [Scheduled] = []
        /// Started on another thread by the next `schedule` call, before it returns.
        var whileArming: (@Sendable () -> Void)?
    }

    /// The steps started by `schedule`, which ``waitForSteps()`` waits for.
    private let steps = DispatchGroup()

    private let lock = NSLock()
    private var unlocked = State()

    private func withState<T>(_ body: (inout State) -> T) -> T {
        self.lock.withLock { body(&self.unlocked) }
    }

    var now: MonotonicInstant { self.withState { $0.now } }

    /// Timers scheduled and not cancelled (fired ones included until `fire`).
    var armedCount: Int { self.withState { $0.scheduled.count { !$0.cancelled } } }

    /// Timers ever scheduled, cancelled and fired ones included.
    var scheduledTotal: Int { self.withState { $0.scheduled.count } }

    /// Runs `step` on another thread, started inside the next `schedule`: another thread
    /// that changes the ack table while the socket arms its timer.
    func whileArming(_ step: @escaping @Sendable () -> Void) {
        self.withState { $0.whileArming = step }
    }

    /// Waits until every step started by `schedule` has finished.
    func waitForSteps() {
        self.steps.wait()
    }

    func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> SocketTimer {
        let (id, step) = self.withState { state -> (Int, (@Sendable () -> Void)?) in
            let id = state.scheduled.count
            state.scheduled.append(Scheduled(id: id, deadline: deadline, body: body))
            defer { state.whileArming = nil }
            return (id, state.whileArming)
        }
        if let step {
            DispatchQueue.global().async(group: self.steps, execute: step)
        }
        return SocketTimer(cancel: { [weak self] in
            self?.withState { $0.scheduled[id].cancelled = true }
        })
    }

    /// Moves time forward and runs the armed timers that are due, earliest first.
    func advance(by duration: TimeAmount) {
        let due = self.withState { state -> [@Sendable () -> Void] in
            state.now += duration
            let now = state.now
            var due: [(MonotonicInstant, @Sendable () -> Void)] = []
            for index in state.scheduled.indices
            where !state.scheduled[index].cancelled && state.scheduled[index].deadline <= now {
                due.append((state.scheduled[index].deadline, state.scheduled[index].body))
                state.scheduled[index].cancelled = true
            }
            return due.sorted { $0.0 < $1.0 }.map(\.1)
        }
        for body in due { body() }
    }

    /// Runs the body of the `index`th timer ever scheduled, even if it was cancelled (a
    /// replaced timer whose cancellation lost the race with its firing).
    func fireLate(_ index: Int) {
        let body = self.withState { $0.scheduled[index].body }
        body()
    }
}

/// The socket arms its ack timer in the critical section that changed its ack table: whatever
/// another thread changes in the table while a timer is being armed, the socket ends with
/// exactly one timer, no later than the table's next deadline. The timer is lazy: an ack that
/// leaves keeps it armed, and it fires once finding nothing, then none is left.
@Suite(.tearsDownTestEngines) struct AckTimerRaceTests {
    private func connectedSocket(_ timers: InterleavingTimerSource) -> (SocketIOClient, DispatchQueue, SocketManager) {
        let (manager, _, socket, queue) = connectedTestSocket([.reconnects(false), .log(false)], timers: timers)
        return (socket, queue, manager)
    }

    /// An ack cancelled while the arming path runs (a race that once left a timer armed for
    /// an empty table for good): the timer stays, by design, once: it fires at its deadline,
    /// delivers nothing and is not armed again.
    @Test func anAckCancelledWhileItsTimerIsArmedLeavesOneWakeUpThatFindsNothing() {
        let timers = InterleavingTimerSource()
        let (socket, queue, manager) = self.connectedSocket(timers)
        #expect(socket.status == .connected)
        let answers = Recorder<String>()
        timers.whileArming { socket.cancelAck(0) }
        socket.emitWithAck("a").timingOut(after: 2) { answers.append($0.first as? String ?? "") }
        timers.waitForSteps()
        #expect(socket.pendingAckCount == 0)
        #expect(timers.armedCount == 1 && socket.hasAckTimer)
        timers.advance(by: .seconds(2))
        drain(queue)
        #expect(answers.values.isEmpty)
        #expect(timers.armedCount == 0 && !socket.hasAckTimer)
        #expect(timers.scheduledTotal == 1)
        withExtendedLifetime(manager) {}
    }

    @Test func anAckAnsweredWhileItsTimerIsArmedLeavesOneWakeUpThatFindsNothing() {
        let timers = InterleavingTimerSource()
        let (socket, queue, manager) = self.connectedSocket(timers)
        let answers = Recorder<String>()
        timers.whileArming { socket.handleAck(0, data: ["ok"]) }
        socket.emitWithAck("a").timingOut(after: 2) { answers.append($0.first as? String ?? "") }
        timers.waitForSteps()
        drain(queue)
        #expect(answers.values == ["ok"])
        #expect(socket.pendingAckCount == 0)
        #expect(timers.armedCount == 1 && socket.hasAckTimer)
        timers.advance(by: .seconds(2))
        drain(queue)
        #expect(answers.values == ["ok"])
        #expect(timers.armedCount == 0 && !socket.hasAckTimer)
        withExtendedLifetime(manager) {}
    }

    /// A request/response loop through the packet path: each emit's deadline is later than
    /// the last, and its ACK arrives before the next emit. One timer is scheduled for the
    /// whole loop, not one scheduled and cancelled per ack; it fires once for nothing.
    @Test func aSteadyRequestResponseLoopSchedulesOneTimer() {
        let timers = InterleavingTimerSource()
        let (socket, queue, manager) = self.connectedSocket(timers)
        let answers = Recorder<String>()
        for index in 0..<100 {
            socket.emitWithAck("a").timingOut(after: 5) { answers.append($0.first as? String ?? "") }
            manager.parseEngineMessage(#"3\#(index)["ok\#(index)"]"#)
            timers.advance(by: .milliseconds(1))
        }
        drain(queue)
        #expect(answers.values == (0..<100).map { "ok\($0)" })
        #expect(socket.pendingAckCount == 0)
        #expect(timers.scheduledTotal == 1 && timers.armedCount == 1)
        timers.advance(by: .seconds(5))
        drain(queue)
        #expect(answers.count == 100)
        #expect(timers.scheduledTotal == 1 && timers.armedCount == 0 && !socket.hasAckTimer)
        withExtendedLifetime(manager) {}
    }

    /// A second ack with an earlier deadline registered while the first one's timer is armed:
    /// one timer, at the earlier deadline, then the later one.
    @Test func anEarlierDeadlineRegisteredWhileArmingWins() {
        let timers = InterleavingTimerSource()
        let (socket, queue, manager) = self.connectedSocket(timers)
        let answers = Recorder<String>()
        timers.whileArming {
            socket.emitWithAck("b").timingOut(after: 1) { answers.append("b:\($0.first as? String ?? "")") }
        }
        socket.emitWithAck("a").timingOut(after: 3) { answers.append("a:\($0.first as? String ?? "")") }
        timers.waitForSteps()
        #expect(timers.armedCount == 1 && socket.hasAckTimer)
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(answers.values == ["b:NO ACK"])
        #expect(timers.armedCount == 1 && socket.hasAckTimer)
        timers.advance(by: .seconds(2))
        drain(queue)
        #expect(answers.values == ["b:NO ACK", "a:NO ACK"])
        #expect(timers.armedCount == 0 && !socket.hasAckTimer)
        withExtendedLifetime(manager) {}
    }

    /// A replaced timer that fires anyway (its cancel lost the race) must not drop the
    /// current timer: the later ack still times out.
    @Test func aReplacedTimerFiringLateKeepsTheCurrentOne() {
        let timers = InterleavingTimerSource()
        let (socket, queue, manager) = self.connectedSocket(timers)
        let answers = Recorder<String>()
        socket.emitWithAck("a").timingOut(after: 5) { answers.append("a:\($0.first as? String ?? "")") }
        // An earlier deadline replaces timer 0 with timer 1.
        socket.emitWithAck("b").timingOut(after: 1) { answers.append("b:\($0.first as? String ?? "")") }
        #expect(timers.armedCount == 1)
        timers.fireLate(0)
        #expect(socket.hasAckTimer && timers.armedCount == 1)
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(answers.values == ["b:NO ACK"])
        timers.advance(by: .seconds(4))
        drain(queue)
        #expect(answers.values == ["b:NO ACK", "a:NO ACK"])
        #expect(!socket.hasAckTimer && timers.armedCount == 0)
        withExtendedLifetime(manager) {}
    }

    /// Many threads register and drop acks with the default timer source (the event loop's
    /// timers natively, Dispatch timers in the Apple configuration): nothing is left armed.
    @Test func manyThreadsRegisteringAndDroppingAcksLeaveNoTimer() {
        let queue = DispatchQueue(label: "ack-timer-stress")
        let manager = SocketManager(
            socketURL: URL(string: "http://localhost:1/")!,
            config: [.handleQueue(queue), .reconnects(false), .log(false)])
        manager.engine = TestEngine(client: manager)
        let socket = manager.defaultSocket
        socket.connect()
        drain(queue)
        manager.parseEngineMessage(#"0{"sid":"s1"}"#)
        drain(queue)
        #expect(socket.status == .connected)
        let ids = Recorder<Int>()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<300 {
                let id = socket.registerAck(timeout: 0.001 * Double(1 + (thread + index) % 50)) { _ in }
                if index % 3 == 0 {
                    ids.append(id)
                } else {
                    socket.cancelAck(id)
                }
            }
        }
        for id in ids.values { socket.cancelAck(id) }
        #expect(socket.pendingAckCount == 0)
        // The wake-up left armed (at most 50 ms out) fires once, finds nothing, and is not
        // armed again.
        let deadline = MonotonicInstant.now + .seconds(10)
        while socket.hasAckTimer, MonotonicInstant.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(!socket.hasAckTimer)
        #expect(socket.pendingAckCount == 0)
        drain(queue)
        withExtendedLifetime(manager) {}
    }
}
