import Dispatch
import Foundation
import RealtimeSync
import TestSupport
import Testing

@testable import SocketIO

/// The engine's readers and the session's reading backpressure, without a server: the engine
/// a manager made asks the session whether reads are held back (`readsPaused`), and a reader
/// that waits (`waitUntilReadable()`) leaves when the session resumes, when its task is
/// cancelled, and when the manager is released.
@Suite(.serialized, TestTimeLimit.minutes(1)) struct SocketEngineReadBackpressureTests {
    /// A manager whose engine it made itself (its connect is refused at once: nothing listens).
    static func managerWithEngine() async throws -> (SocketManager, SocketEngine) {
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:1")!,
            config: [.log(false), .reconnects(false), .handleQueue(DispatchQueue(label: "SocketEngineReadBackpressureTests"))])
        manager.connect()
        let engine = try #require(manager.engine as? SocketEngine)
        return (manager, engine)
    }

    /// A task waiting in `waitUntilReadable()`, and whether it has returned.
    final class Reader: Sendable {
        let returned = LockedValue(false)
        let task: Task<Bool, Never>

        init(_ engine: SocketEngine) {
            let returned = self.returned
            self.task = Task {
                await engine.waitUntilReadable()
                returned.withLock { $0 = true }
                return Task.isCancelled
            }
        }

        var hasReturned: Bool { self.returned.withLock { $0 } }
    }

    @Test func aReaderWaitsWhileAStreamIsBehindAndLeavesWhenItCatchesUp() async throws {
        let (manager, engine) = try await Self.managerWithEngine()
        let socket = manager.defaultSocket
        #expect(!engine.readsPaused)
        await engine.waitUntilReadable()  // reads going on: returns at once

        socket.consumer(behind: true)
        #expect(engine.readsPaused)
        let reader = Reader(engine)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(!reader.hasReturned)
        socket.consumer(behind: false)
        #expect(await reader.task.value == false)
        #expect(!engine.readsPaused)
        withExtendedLifetime(manager) {}
    }

    @Test func aCancelledReaderLeavesWhileReadsStayHeldBack() async throws {
        let (manager, engine) = try await Self.managerWithEngine()
        let socket = manager.defaultSocket
        socket.consumer(behind: true)
        let reader = Reader(engine)
        try await Task.sleep(nanoseconds: 50_000_000)
        reader.task.cancel()
        #expect(await reader.task.value == true)
        #expect(engine.readsPaused)
        // The list holds no stale entry: a later resume finds nothing to resume.
        socket.consumer(behind: false)
        #expect(!engine.readsPaused)
        withExtendedLifetime(manager) {}
    }

    /// The manager goes while its stream is behind (a socket holds its manager weakly): the
    /// waiting reader leaves, and cancelling it afterwards finds its list (a reader that waited
    /// in the manager's half trapped there once the half was gone).
    @Test func releasingTheManagerLetsItsWaitingReaderGo() async throws {
        var manager: SocketManager? = try await Self.managerWithEngine().0
        let engine = try #require(manager?.engine as? SocketEngine)
        let socket = try #require(manager?.defaultSocket)
        socket.consumer(behind: true)
        let reader = Reader(engine)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(!reader.hasReturned)
        weak let released = manager
        manager?.disconnect()
        manager = nil
        #expect(await ProcessResources.eventually { released == nil }, "the manager was not released")
        #expect(await ProcessResources.eventually { reader.hasReturned }, "the reader still waits")
        reader.task.cancel()
        #expect(await reader.task.value == false)
        #expect(!engine.readsPaused)
        withExtendedLifetime(socket) {}
    }
}
