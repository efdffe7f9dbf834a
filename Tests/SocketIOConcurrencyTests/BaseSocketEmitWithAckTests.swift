import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

@testable import SocketIO

/// `emitWithAck` on the class itself (not a subclass, whose override is asked after a status
/// check of its own: `EmitTests`): the status is checked in the emit's own section, which
/// refuses unreported and unregistered while the socket is not connected.
@Suite struct BaseSocketEmitWithAckTests {
    func socket() -> (SocketManager, SocketIOClient) {
        let config: SocketIOClientConfiguration = [
            .handleQueue(DispatchQueue(label: "BaseSocketEmitWithAckTests")), .log(false), .reconnects(false),
        ]
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:9")!, config: config)
        return (manager, manager.defaultSocket)
    }

    @Test func notConnectedThrowsAtOnceReportsNothingAndKeepsNoAck() async throws {
        let (manager, socket) = self.socket()
        defer { manager.disconnect() }
        let errors = LockedCounter()
        socket.on(clientEvent: .error) { _, _ in errors.increment() }
        let started = DispatchTime.now()
        await #expect(throws: SocketIOClient.Error.notConnected(event: "e")) {
            try await socket.emitWithAck("e", "x", timeout: 5)
        }
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 1_000_000_000)
        #expect(socket.pendingAckCount == 0)
        // The error handlers run on handleQueue: anything reported would be there by now.
        manager.handleQueue.sync {}
        #expect(errors.value == 0)
    }

    @Test func itemsThatCannotBeRepresentedAreReportedAsUpstreamDoes() async throws {
        struct Refused: Error {}
        struct Unrepresentable: SocketData {
            func socketRepresentation() throws -> SocketData { throw Refused() }
        }
        let (manager, socket) = self.socket()
        defer { manager.disconnect() }
        // Not connected: the status is checked first, as before (upstream's method is not
        // asked, so nothing is reported).
        await #expect(throws: SocketIOClient.Error.notConnected(event: "e")) {
            try await socket.emitWithAck("e", Unrepresentable(), timeout: 5)
        }
        #expect(socket.pendingAckCount == 0)
    }

    @Test func aCancelledTaskSendsNothing() async throws {
        let (manager, socket) = self.socket()
        defer { manager.disconnect() }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await socket.emitWithAck("e", timeout: 5)
        }
        await #expect(throws: SocketIOClient.Error.cancelled) { try await task.value }
        #expect(socket.pendingAckCount == 0)
    }
}
