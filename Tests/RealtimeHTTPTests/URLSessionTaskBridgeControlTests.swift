#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
@testable import RealtimeHTTP
import RealtimeIO
import RealtimeSync
import Testing
import TestSupport

/// The bridge makes one call at a time on its data task. swift-corelibs-foundation 6.3.1 traps
/// in `_NativeProtocol.stopLoading` (NativeProtocol.swift:69) when a `cancel()` or `resume()`
/// enters while a `suspend()` is still inside the task's `workQueue.sync`; that trap was hit
/// by `URLSessionTransportLifetimeTests` under AddressSanitizer on one core. Here a task that
/// holds its `suspend()` open shows whether another call gets in meanwhile. (The bridge no
/// longer suspends a task on swift-corelibs-foundation, where a resume sends the request
/// again; these bridges suspend as on Apple platforms, whose path keeps the same one-call rule.)
@Suite struct URLSessionTaskBridgeControlTests {
    /// A data task that records the calls made on it and keeps `suspend()` open until told.
    final class RecordingDataTask: URLSessionDataTask, @unchecked Sendable {
        struct Record {
            var calls: [String] = []
            var inside = 0
            var mostInside = 0
        }

        let record = LockedValue(Record())
        private let releaseSuspend = DispatchSemaphore(value: 0)

        private func enter(_ call: String) {
            self.record.withLock { record in
                record.calls.append(call)
                record.inside += 1
                record.mostInside = max(record.mostInside, record.inside)
            }
        }

        private func leave() { self.record.withLock { $0.inside -= 1 } }

        override func suspend() {
            self.enter("suspend")
            _ = self.releaseSuspend.wait(timeout: .now() + 10)
            self.leave()
        }

        override func resume() {
            self.enter("resume")
            self.leave()
        }

        override func cancel() {
            self.enter("cancel")
            self.leave()
        }

        func finishSuspend() { self.releaseSuspend.signal() }

        var calls: [String] { self.record.withLock { $0.calls } }
        var mostInside: Int { self.record.withLock { $0.mostInside } }
        var suspendIsOpen: Bool { self.record.withLock { $0.calls.last == "suspend" && $0.inside == 1 } }
    }

    /// A started bridge whose task is inside `suspend()` (queued body past the limit).
    static func bridgeInsideSuspend() async throws -> (URLSessionTaskBridge, RecordingDataTask) {
        // The Apple platforms' path: there a suspension pauses the transfer.
        let bridge = URLSessionTaskBridge(bufferLimit: 1024, idleTimeout: .seconds(30), eventLoop: EventLoopGroup.shared.next(), suspendsTask: true)
        let task = RecordingDataTask()
        bridge.attach(task)
        let head = Task { await bridge.start() }
        #expect(await ProcessResources.eventually { task.calls == ["resume"] })
        bridge.didReceive(
            response: HTTPURLResponse(
                url: URL(string: "http://h.test/")!, statusCode: 200,
                httpVersion: "HTTP/1.1", headerFields: [:])!)
        _ = try await head.value.get()
        // As the delegate queue does: data past the limit suspends the task (from its thread).
        DispatchQueue.global().async { bridge.didReceive(data: Data(repeating: 0x61, count: 2048)) }
        #expect(await ProcessResources.eventually { task.suspendIsOpen }, "calls: \(task.calls)")
        return (bridge, task)
    }

    @Test func aCancelWaitsForTheSuspendInProgress() async throws {
        let (bridge, task) = try await Self.bridgeInsideSuspend()
        DispatchQueue.global().async { bridge.cancel() }
        // Room for the cancel to get in (it must not): 300 ms, not an assertion on time.
        _ = await ProcessResources.eventually(timeout: .milliseconds(300)) { task.calls.count > 2 }
        task.finishSuspend()
        #expect(await ProcessResources.eventually { task.calls.count == 3 })
        #expect(task.calls == ["resume", "suspend", "cancel"])
        #expect(task.mostInside == 1, "a call entered the task while suspend() was inside it")
    }

    @Test func aResumeWaitsForTheSuspendInProgress() async throws {
        let (bridge, task) = try await Self.bridgeInsideSuspend()
        // The consumer drains the queue below half the limit: the bridge resumes the task.
        let read = Task { try await bridge.next() }
        _ = await ProcessResources.eventually(timeout: .milliseconds(300)) { task.calls.count > 2 }
        task.finishSuspend()
        #expect(try await read.value?.count == 2048)
        #expect(await ProcessResources.eventually { task.calls.count == 3 })
        #expect(task.calls == ["resume", "suspend", "resume"], "the task must end up running")
        #expect(task.mostInside == 1, "a call entered the task while suspend() was inside it")
        bridge.cancel()
        #expect(await ProcessResources.eventually { task.calls.last == "cancel" })
    }
}
#endif
