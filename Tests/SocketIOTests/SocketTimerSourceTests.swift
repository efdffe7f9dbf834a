import Dispatch
import EngineIOClient
import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import SocketIO

/// The manager's one timer source drives its sockets' ack deadlines: tests move time instead
/// of sleeping, and one ack timer is armed however many acks wait.
@Suite(.tearsDownTestEngines) struct SocketTimerSourceTests {
    /// `schedule(after:)`, the one conversion from an upstream `Double` timeout to a deadline:
    /// negative and NaN fire at once, a huge or infinite delay is clamped instead of trapping.
    @Test func scheduleAfterClampsWhatADurationCannotHold() {
        let timers = ManualTimerSource()
        let fired = Recorder<String>()
        for (name, seconds) in [
            ("negative", -5.0), ("nan", Double.nan), ("two", 2.0),
            ("huge", 1e300), ("infinite", Double.infinity),
        ] {
            _ = timers.schedule(after: seconds) { fired.append(name) }
        }
        timers.advance(by: .zero)
        #expect(fired.values.sorted() == ["nan", "negative"])
        timers.advance(by: .seconds(2))
        #expect(fired.values.sorted() == ["nan", "negative", "two"])
        timers.advance(by: .seconds(ManualTimerSource.longestDelay - 3))
        #expect(fired.values.count == 3)
        timers.advance(by: .seconds(1))
        #expect(fired.values.sorted() == ["huge", "infinite", "nan", "negative", "two"])
    }

    @Test func ackDeadlinesComeFromTheManagersTimerSource() {
        let timers = ManualTimerSource()
        let queue = DispatchQueue(label: "timer-source-test")
        let manager = SocketManager(
            socketURL: URL(string: "http://localhost:1/")!,
            config: [.handleQueue(queue), .reconnects(false)], timers: timers)
        let engine = TestEngine(client: manager)
        manager.engine = engine
        let socket = manager.defaultSocket
        socket.connect()
        drain(queue)
        manager.parseEngineMessage(#"0{"sid":"s1"}"#)
        drain(queue)
        #expect(socket.status == .connected)

        let answers = Recorder<String>()
        socket.emitWithAck("a").timingOut(after: 2) { answers.append("a:\($0.first as? String ?? "")") }
        socket.emitWithAck("b").timingOut(after: 5) { answers.append("b:\($0.first as? String ?? "")") }
        // One timer for the earliest deadline, however many acks wait.
        #expect(timers.scheduledCount == 1)
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(answers.values.isEmpty)
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(answers.values == ["a:NO ACK"])
        // The one timer moved on to b's deadline.
        #expect(timers.scheduledCount == 1 && socket.hasAckTimer)
        socket.handleAck(1, data: ["ok"])
        drain(queue)
        #expect(answers.values == ["a:NO ACK", "b:ok"])
        #expect(socket.pendingAckCount == 0)
        // The answer leaves the timer armed (lazy): at b's deadline it fires once, delivers
        // nothing and is not armed again.
        #expect(timers.scheduledCount == 1 && socket.hasAckTimer)
        timers.advance(by: .seconds(3))
        drain(queue)
        #expect(answers.values == ["a:NO ACK", "b:ok"])
        #expect(timers.scheduledCount == 0 && !socket.hasAckTimer)
    }

    /// The lazy wake-up's main path: an answered ack leaves the timer armed for its deadline
    /// D; an ack asked for after it, with a later deadline E, gets no timer of its own. At D
    /// the timer fires for nothing and is armed for E, where the later ack times out on time:
    /// the callback API's `["NO ACK"]`, and the waiter SocketIOConcurrency's `emitWithAck`
    /// registers (its `.timedOut`).
    @Test func aTimerArmedForAnAnsweredAckIsArmedAgainForALaterOneThatTimesOutOnTime() {
        let timers = ManualTimerSource()
        let (manager, _, socket, queue) = connectedTestSocket(timers: timers)
        #expect(socket.status == .connected)
        let answers = Recorder<String>()
        // D = 2 s: answered at once.
        socket.emitWithAck("first").timingOut(after: 2) { answers.append("first:\($0.first as? String ?? "")") }
        socket.handleAck(0, data: ["ok"])
        drain(queue)
        #expect(answers.values == ["first:ok"] && timers.scheduledCount == 1)
        // At 1 s, two acks with E = 1 + 3 = 4 s: the callback's and a waiter's.
        timers.advance(by: .seconds(1))
        socket.emitWithAck("second").timingOut(after: 3) { answers.append("second:\($0.first as? String ?? "")") }
        let waited = Recorder<String>()
        let sent = socket.createOnAck(["third"]).sendWithAck(timingOut: 3) { outcome in
            if case .timedOut = outcome { waited.append("third:timed out") } else { waited.append("third:\(outcome)") }
        }
        guard case .sent = sent else {
            Issue.record("the waiter's emit was not sent: \(sent)")
            return
        }
        // No second timer: the armed one (D) is earlier.
        #expect(timers.scheduledCount == 1)
        // D: it fires for nothing and is armed for E.
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(answers.values == ["first:ok"] && waited.values.isEmpty)
        #expect(timers.scheduledCount == 1 && socket.hasAckTimer)
        // Just before E nothing; at E both time out, and nothing is armed any more.
        timers.advance(by: .milliseconds(1999))
        drain(queue)
        #expect(answers.values == ["first:ok"] && waited.values.isEmpty)
        timers.advance(by: .milliseconds(1))
        drain(queue)
        #expect(answers.values == ["first:ok", "second:NO ACK"])
        #expect(waited.values == ["third:timed out"])
        #expect(timers.scheduledCount == 0 && !socket.hasAckTimer)
        withExtendedLifetime(manager) {}
    }

    /// A socket released while its lazy timer is armed cancels it: the loop keeps no timer for
    /// a socket that is gone.
    @Test func aReleasedSocketCancelsItsAckTimer() {
        let timers = ManualTimerSource()
        let (manager, released) = { () -> (SocketManager, WeakBox<SocketIOClient>) in
            let (manager, _, socket, queue) = connectedTestSocket(timers: timers)
            socket.emitWithAck("x").timingOut(after: 5) { _ in }
            socket.handleAck(0, data: ["ok"])
            drain(queue)
            return (manager, WeakBox(socket))
        }()
        #expect(timers.scheduledCount == 1)
        // The manager holds its sockets by namespace: taking them out releases the socket.
        manager.nsps = [:]
        #expect(released.value == nil)
        #expect(timers.scheduledCount == 0)
    }

    /// `connect(withPayload:timeoutAfter:withHandler:)`'s deadline is a timer of the same
    /// source: the handler runs (on `handleQueue`) when that source's time passes it, not before.
    @Test func theConnectTimeoutComesFromTheManagersTimerSource() {
        let timers = ManualTimerSource()
        let queue = DispatchQueue(label: "timer-source-connect-test")
        let manager = SocketManager(
            socketURL: URL(string: "http://localhost:1/")!,
            config: [.handleQueue(queue), .reconnects(false)], timers: timers)
        let engine = TestEngine(client: manager)
        engine.opensOnConnect = false
        manager.engine = engine
        let socket = manager.defaultSocket
        let timedOut = Recorder<String>()
        socket.connect(withPayload: nil, timeoutAfter: 10) {
            timedOut.append(DispatchQueue.getSpecific(key: Self.queueKey) == "connect" ? "on handleQueue" : "elsewhere")
        }
        queue.setSpecific(key: Self.queueKey, value: "connect")
        #expect(timers.scheduledCount == 1)
        timers.advance(by: .seconds(9))
        drain(queue)
        #expect(timedOut.values.isEmpty)
        #expect(socket.status == .connecting)
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(timedOut.values == ["on handleQueue"])
        #expect(socket.status == .disconnected)
    }

    // nonisolated(unsafe): Darwin's Dispatch does not mark `DispatchSpecificKey` `Sendable`
    // (corelibs does); the key is an immutable token, created once and only compared.
    nonisolated(unsafe) static let queueKey = DispatchSpecificKey<String>()
}

/// A weak reference, to see an object go.
private final class WeakBox<Object: AnyObject> {
    weak var value: Object?

    init(_ value: Object) {
        self.value = value
    }
}
