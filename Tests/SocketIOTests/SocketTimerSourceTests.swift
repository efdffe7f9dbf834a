import Dispatch
import EngineIOClient
import Foundation
import RealtimeTime
import Testing

@testable import SocketIO

/// A timer source the test drives: time moves only when the test says so.
final class ManualTimerSource: SocketTimerSource, @unchecked Sendable {
    // `@unchecked Sendable`: all state is behind `lock`.
    private let lock = NSLock()
    private var current = MonotonicInstant.now
    private var timers: [(id: Int, deadline: MonotonicInstant, body: @Sendable () -> Void)] = []
    private var nextID = 0

    var now: MonotonicInstant { self.lock.withLock { self.current } }

    var scheduledCount: Int { self.lock.withLock { self.timers.count } }

    func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> SocketTimer {
        let id = self.lock.withLock { () -> Int in
            defer { self.nextID += 1 }
            self.timers.append((self.nextID, deadline, body))
            return self.nextID
        }
        return SocketTimer(cancel: { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.timers.removeAll { $0.id == id } }
        })
    }

    /// Moves time forward and runs the timers that are due, earliest first.
    func advance(by duration: TimeAmount) {
        let due = self.lock.withLock { () -> [@Sendable () -> Void] in
            self.current += duration
            let due = self.timers.filter { $0.deadline <= self.current }.sorted { $0.deadline < $1.deadline }
            self.timers.removeAll { $0.deadline <= self.current }
            return due.map(\.body)
        }
        for body in due { body() }
    }
}

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
        #expect(timers.scheduledCount == 0 && !socket.hasAckTimer)
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
