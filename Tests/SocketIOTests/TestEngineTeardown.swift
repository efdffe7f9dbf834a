import Foundation
import Testing

@testable import SocketIO

/// Tears down what a test built with ``makeManager(_:)`` / ``TestEngine`` when the test ends.
///
/// ``TestEngine`` holds its client (the manager) strongly, on purpose: many tests keep only the
/// socket or the engine, and the socket holds its manager weakly (as upstream's does), so the
/// engine is what keeps the manager alive during the test. The manager holds the engine, so
/// each test left a manager <-> engine cycle (with its sockets, handlers and queues) behind,
/// which LeakSanitizer reported (docs/RELIABILITY.md). This trait gives every test a scope:
/// the engines made in it register there, and when the test returns each engine drops its
/// client and the client's sockets drop their handlers (handlers that capture their own socket
/// are the other cycle the tests build), so everything is freed.
struct TearsDownTestEngines: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let scope = TestEngineScope()
        defer { scope.tearDown() }
        try await TestEngineScope.$current.withValue(scope) {
            try await function()
        }
    }
}

extension Trait where Self == TearsDownTestEngines {
    /// Breaks the manager <-> ``TestEngine`` cycles of each test when it ends.
    static var tearsDownTestEngines: Self { TearsDownTestEngines() }
}

/// The engines made while one test runs.
final class TestEngineScope: @unchecked Sendable {
    // `@unchecked Sendable`: `engines` is behind `lock`.
    @TaskLocal static var current: TestEngineScope?

    private let lock = NSLock()
    private var engines: [TestEngine] = []

    func register(_ engine: TestEngine) {
        self.lock.withLock { self.engines.append(engine) }
    }

    func tearDown() {
        let engines = self.lock.withLock {
            defer { self.engines = [] }
            return self.engines
        }
        for engine in engines {
            if let manager = engine.client as? SocketManager {
                for socket in manager.nsps.values { socket.removeAllHandlers() }
            }
            engine.dropClient()
        }
    }
}
