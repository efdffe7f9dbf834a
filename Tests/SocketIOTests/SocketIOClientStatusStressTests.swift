import Dispatch
import Foundation
import Testing

@testable import SocketIO

/// Upstream's status entry points (`didConnect`, `didDisconnect`, `setReconnecting`), called
/// directly from many threads at once on one socket: each is one input of the socket's
/// namespace machine, and every status it sets is reported once, in the machine's order.
@Suite(.tearsDownTestEngines) struct SocketIOClientStatusStressTests {
    static let threads = 16
    static let callsPerThread = 300

    /// Runs `body(index)` on `count` threads of their own, started together; the waiting
    /// happens on a thread too, never on a cooperative-pool thread.
    static func together(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let go = DispatchSemaphore(value: 0)
                let done = DispatchGroup()
                for index in 0..<count {
                    done.enter()
                    Thread.detachNewThread {
                        go.wait()
                        body(index)
                        done.leave()
                    }
                }
                for _ in 0..<count { go.signal() }
                done.wait()
                continuation.resume()
            }
        }
    }

    @Test func everyStatusSetIsReportedOnceInTheMachinesOrder() async {
        let (manager, _, _) = makeManager([.reconnects(false)])
        let socket = manager.defaultSocket
        let statuses = Recorder<SocketIOStatus>()
        let events = Recorder<String>()
        socket.on(clientEvent: .statusChange) { data, _ in
            if let status = data.first as? SocketIOStatus { statuses.append(status) }
        }
        socket.on(clientEvent: .connect) { _, _ in events.append("connect") }
        socket.on(clientEvent: .disconnect) { _, _ in events.append("disconnect") }
        socket.on(clientEvent: .reconnect) { _, _ in events.append("reconnect") }

        await Self.together(Self.threads) { index in
            var generator = SystemRandomNumberGenerator()
            for call in 0..<Self.callsPerThread {
                switch (index + call + Int.random(in: 0..<3, using: &generator)) % 3 {
                case 0: socket.didConnect(toNamespace: "/", payload: ["sid": "s\(index)"])
                case 1: socket.didDisconnect(reason: "test")
                default: socket.setReconnecting(reason: "test")
                }
            }
        }

        let reported = statuses.values
        let counts = Dictionary(grouping: events.values, by: { $0 }).mapValues(\.count)
        // One report per status set: `connect` / `disconnect` only when the guard let the
        // status change, `setReconnecting` always.
        #expect(reported.filter { $0 == .connected }.count == counts["connect", default: 0])
        #expect(reported.filter { $0 == .disconnected }.count == counts["disconnect", default: 0])
        #expect(reported.filter { $0 == .connecting }.count == counts["reconnect", default: 0])
        #expect(counts["reconnect", default: 0] > 0 && counts["connect", default: 0] > 0)
        // In the machine's order: `didConnect` never passes its guard twice in a row, nor
        // `didDisconnect`, so neither value is reported twice in a row.
        let repeated = zip(reported, reported.dropFirst()).filter { $0 == $1 && $0 != .connecting }
        #expect(repeated.isEmpty, "\(repeated.prefix(5))")
        // The last report is the status the machine holds.
        #expect(reported.last == socket.status)
    }
}
