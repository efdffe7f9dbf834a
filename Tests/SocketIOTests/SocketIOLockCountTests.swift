import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SocketIO

/// Acquisitions of a session's one lock (its core's mutex), counted by the lock domain in
/// debug builds, per inbound event and per awaited ack's round trip, over WebSocket against
/// python-socketio. Issue 34 asks for at most 2 per inbound message and per emit:
/// - an event takes 2: the section that feeds the engine's machine, takes the engine's turn
///   and runs the core's step (read, route, the socket's machine, who gets the event), and
///   the turn's end;
/// - an emit takes 2: its section (the socket's machine decides and registers the ack, and
///   the engine the manager made writes: the frames go into the WebSocket send queue), and the
///   writer's finished send, which takes the next batch in the same section;
/// - so an ack's round trip takes 4: the emit's 2 and the answer's 2.
///
/// A write made while the reading thread still holds the turn of a message it delivers (the
/// ack's waiter emits again from there) queues its frames past that turn, so it takes no more.
/// The ceiling allows an average of a quarter of a section more per ack, for a write that
/// finds the machine's actions being performed (a pong, say).
///
/// The events reach a value subscriber (what SocketIOConcurrency's streams register) and the
/// acks an awaiting waiter (its `emitWithAck`): the paths the async API takes. Heartbeats
/// (every 25 s) do not fall in a run this short.
@Suite(.serialized) struct SocketIOLockCountTests {
    static let count = 200

    @Test(
        .countsLockSections,
        .needsDefaultWebSocket)
    func lockAcquisitionsPerInboundEventAndPerAck() async throws {
        let harness = try await LoopbackHarness(.webSocket)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)
        let domain = harness.manager.lockDomain

        // Inbound: `count` events, each its own Engine.IO message.
        let received = Recorder<Int>()
        _ = socket.on("flood_item", values: { received.append($0.values.count) }, items: { _, _ in received.append(-1) })
        // Settled first, so the request's own emit is not counted with the events.
        #expect(await harness.ack(socket, "ack_me", ["ready"]) != nil)
        let beforeEvents = domain.acquisitions
        socket.emit("flood", Self.count)
        #expect(await received.wait(forCount: Self.count, timeout: 20))
        // The request's emit is counted with them: at most one emit's share (2) on top.
        let eventsAndRequest = domain.acquisitions - beforeEvents
        let perEvent = Double(eventsAndRequest - 2) / Double(Self.count)

        // An awaited ack's round trip: the emit out, the ack in.
        let beforeAcks = domain.acquisitions
        for index in 0..<Self.count {
            let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let sent = socket.createOnAck(["ack_me", index]).sendWithAck(
                    timingOut: 0,
                    waiter: { outcome in
                        if case .ack = outcome { continuation.resume(returning: true) } else { continuation.resume(returning: false) }
                    })
                if case .sent = sent {} else { continuation.resume(returning: false) }
            }
            #expect(answered)
        }
        let perAck = Double(domain.acquisitions - beforeAcks) / Double(Self.count)
        print("session lock acquisitions: \(perEvent) per inbound event, \(perAck) per awaited ack (emit + ack)")
        #expect(eventsAndRequest <= 2 * Self.count + 2)
        #expect(perAck <= 4.25)
        #expect(received.values.allSatisfy { $0 == 1 })
    }
}
