// The native stack's tests: RealtimeIO has no threads in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Foundation
import Glibc
import RealtimeSync
import TestSupport
import Testing
@testable import RealtimeIO

@Suite("EventLoopGroup: loops, their timers, shutdown", .serialized, TestTimeLimit.minutes(2))
struct EventLoopGroupTests {
    @Test("next() hands out the group's loops in turn, each its own thread")
    func roundRobin() async throws {
        let group = EventLoopGroup(loopCount: 2)
        defer { Task { await group.shutdown() } }
        #expect(group.loopCount == 2)
        let picks = (0..<6).map { _ in group.next() }
        #expect(picks[0] !== picks[1])
        for index in 2..<6 { #expect(picks[index] === picks[index - 2]) }
        let started = await ProcessResources.eventually { group.loops.allSatisfy { $0.threadKernelID != 0 } }
        try #require(started)
        #expect(group.loops[0].threadKernelID != group.loops[1].threadKernelID)
        #expect(EventLoopGroup(loopCount: 0).loopCount == 1)
    }

    @Test("connections spread across the loops; each registers with, and echoes on, its own")
    func connectionsSpreadAcrossLoops() async throws {
        let group = EventLoopGroup(loopCount: 2)
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            var streams: [TCPStream] = []
            for _ in 0..<4 {
                let stream = try await IOTestHelpers.connect(port: server.port, on: group.next())
                streams.append(try #require(stream as? TCPStream))
            }
            #expect(streams[0].eventLoop === group.loops[0])
            #expect(streams[1].eventLoop === group.loops[1])
            #expect(streams[2].eventLoop === group.loops[0])
            #expect(streams[3].eventLoop === group.loops[1])
            #expect(group.loops.map(\.registeredDescriptorCount) == [2, 2])
            for (index, stream) in streams.enumerated() {
                try await stream.write([UInt8(index), 42])
                #expect(try await IOTestHelpers.read(stream, count: 2) == [UInt8(index), 42])
            }
            for stream in streams { stream.close() }
            #expect(group.loops.map(\.registeredDescriptorCount) == [0, 0])
        }
        await group.shutdown()
    }

    @Test("a timer fires on the thread of the loop that scheduled it")
    func timersFireOnTheirLoop() async throws {
        let group = EventLoopGroup(loopCount: 2)
        let (first, second) = (group.loops[0], group.loops[1])
        // (fired on first, fired on second) for each loop's timer.
        let seen = LockedValue<[Int: (Bool, Bool)]>([:])
        for (index, loop) in [first, second].enumerated() {
            loop.scheduleTimer(at: .now + .milliseconds(10)) {
                let threads = (first.isCurrentThread, second.isCurrentThread)
                seen.withLock { $0[index] = threads }
            }
        }
        let fired = await ProcessResources.eventually { seen.withLock { $0.count } == 2 }
        try #require(fired)
        let result = seen.withLock { $0 }
        #expect(result[0].map { [$0.0, $0.1] } == [true, false])
        #expect(result[1].map { [$0.0, $0.1] } == [false, true])
        await group.shutdown()
    }

    @Test("cancelling a timer cancels it on its own loop, never the same-numbered timer of another")
    func cancelGoesToTheTimersLoop() async throws {
        // Two fresh loops number their timers alike: a cancel sent to the wrong heap would hit
        // the other loop's first timer. The handle carries its loop, so it cannot.
        let group = EventLoopGroup(loopCount: 2)
        let fired = LockedValue<[String]>([])
        let deadline = MonotonicInstant.now + .milliseconds(30)
        let onFirst = group.loops[0].scheduleTimer(at: deadline) { fired.withLock { $0.append("first") } }
        let onSecond = group.loops[1].scheduleTimer(at: deadline) { fired.withLock { $0.append("second") } }
        #expect(onFirst.loop === group.loops[0])
        #expect(onSecond.loop === group.loops[1])
        onSecond.cancel()
        #expect(onFirst.isScheduled)
        #expect(!onSecond.isScheduled)
        let done = await ProcessResources.eventually { !fired.withLock { $0 }.isEmpty }
        try #require(done)
        // A later timer on the second loop fires after the cancelled one's deadline: had the
        // cancel missed, "second" would be in the log before it.
        let marker = LockedValue(false)
        group.loops[1].scheduleTimer(at: .now + .milliseconds(20)) { marker.withLock { $0 = true } }
        let markerFired = await ProcessResources.eventually { marker.withLock { $0 } }
        try #require(markerFired)
        #expect(fired.withLock { $0 } == ["first"])
        onSecond.cancel()  // a second cancel is a no-op
        await group.shutdown()
    }

    @Test("shutdown ends the threads and fails a waiting read, a timer and later connects, typed")
    func shutdownFailsWaitersTyped() async throws {
        let group = EventLoopGroup(loopCount: 2)
        let started = await ProcessResources.eventually { group.loops.allSatisfy { $0.threadKernelID != 0 } }
        try #require(started)
        let threadIDs = group.loops.map(\.threadKernelID)
        #expect(threadIDs.allSatisfy { Self.threadExists($0) })
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let loop = group.next()
            let stream = try await IOTestHelpers.connect(port: server.port, on: loop)
            // The echo server says nothing until spoken to: this read waits on the loop.
            let reading = Task { () -> NetworkError.Kind? in
                do throws(NetworkError) {
                    _ = try await stream.read(maxLength: 16)
                    return nil
                } catch {
                    return error.kind
                }
            }
            let timerError = LockedValue<NetworkError.Kind?>(nil)
            let timerFired = LockedValue(false)
            loop.scheduleTimer(
                at: .now + .seconds(3_600), onShutdown: { error in timerError.withLock { $0 = error.kind } },
                { timerFired.withLock { $0 = true } })
            try await Task.sleep(.milliseconds(50))  // the read is parked on the loop by now

            await group.shutdown()

            #expect(await reading.value == .eventLoopShutDown)
            #expect(timerError.withLock { $0 } == .eventLoopShutDown)
            #expect(!timerFired.withLock { $0 })
            #expect(loop.registeredDescriptorCount == 0)
            do {
                _ = try await IOTestHelpers.connect(port: server.port, on: loop)
                Issue.record("a connect on a shut-down loop succeeded")
            } catch let error as NetworkError {
                #expect(error.kind == .eventLoopShutDown)
            }
            let late = LockedValue<NetworkError.Kind?>(nil)
            let handle = loop.scheduleTimer(at: .now, onShutdown: { error in late.withLock { $0 = error.kind } }, {})
            #expect(late.withLock { $0 } == .eventLoopShutDown)
            #expect(!handle.isScheduled)
        }
        let gone = await ProcessResources.eventually { threadIDs.allSatisfy { !Self.threadExists($0) } }
        #expect(gone, "a loop thread outlived shutdown()")
        let resolversGone = await ProcessResources.eventually { group.resolver.runningThreadCount == 0 }
        #expect(resolversGone, "a resolver thread outlived shutdown()")
        // A task that prefers a dead loop still runs (its jobs go to the global executor).
        let ran = await Task(executorPreference: group.loops[0]) { 7 }.value
        #expect(ran == 7)
    }

    @Test("a name lookup on a shut-down group fails typed instead of waiting")
    func resolverAfterShutdown() async throws {
        let group = EventLoopGroup(loopCount: 1)
        await group.shutdown()
        do {
            _ = try await NetworkConnector.connect(
                to: Endpoint(host: "localhost", port: 9, tls: nil), timeout: .seconds(5), on: group.next())
            Issue.record("a connect on a shut-down group succeeded")
        } catch {
            #expect(error.kind == .eventLoopShutDown)
        }
    }

    @Test("the process default is one group, one loop per online core, and ignores shutdown")
    func processDefault() async throws {
        #expect(EventLoopGroup.shared === EventLoopGroup.shared)
        #expect(EventLoopGroup.shared.loopCount == max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        await EventLoopGroup.shared.shutdown()
        #expect(!EventLoopGroup.shared.next().isShutDown)
    }

    /// Whether the process still has the thread with kernel id `id`.
    static func threadExists(_ id: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/self/task/\(id)")
    }
}
#endif
