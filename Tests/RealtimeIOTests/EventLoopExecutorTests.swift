// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Testing
import TestSupport
@testable import RealtimeIO

@Suite("EventLoop as an opt-in task executor", TestTimeLimit.minutes(2))
struct EventLoopExecutorTests {
    @Test("a task preferring the loop runs its I/O on the loop thread and echoes correctly")
    func echoOnLoop() async throws {
        let loop = EventLoopGroup.shared.next()
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let port = server.port
            let (ranOnLoop, reply) = try await withTaskExecutorPreference(loop) {
                let stream = try await IOTestHelpers.connect(port: port, on: loop)
                defer { stream.close() }
                var onLoop = loop.isCurrentThread
                var received: [UInt8] = []
                for round in 0..<50 {
                    try await stream.write([UInt8(round)])
                    received += try await stream.read(maxLength: 16)
                    onLoop = onLoop && loop.isCurrentThread
                }
                return (onLoop, received)
            }
            #expect(ranOnLoop)
            #expect(reply == (0..<50).map { UInt8($0) })
            #expect(!loop.isCurrentThread)
        }
    }

    @Test("a job that a job enqueues runs in the same turn, without polling the kernel, up to the bound")
    func jobsEnqueuedByJobsRunInTheSameTurn() async {
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.next()
        // Each `Task.yield()` enqueues the task's next job on the loop from its running job.
        func pollsWhileYielding(_ count: Int) async -> Int {
            await Task(executorPreference: loop) {
                let before = loop.pollCount
                for _ in 0..<count { await Task.yield() }
                return loop.pollCount - before
            }.value
        }
        let few = await pollsWhileYielding(200)
        let many = await pollsWhileYielding(3 * EventLoop.maximumJobsPerTurn)
        await group.shutdown()
        // One turn used to run one round of jobs and then poll (`epoll_wait` with a zero
        // timeout): 200 polls for 200 yields.
        #expect(few <= 1, "\(few) polls for 200 yields")
        // Past the bound the loop polls, so readiness and timers are not held back.
        #expect(many >= 2, "\(many) polls for \(3 * EventLoop.maximumJobsPerTurn) yields")
    }

    @Test("a task yielding in a loop on the loop executor does not starve I/O or timers")
    func yieldingJobDoesNotStarve() async throws {
        let loop = EventLoopGroup.shared.next()
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let port = server.port
            let spinner = Task(executorPreference: loop) {
                while !Task.isCancelled { await Task.yield() }
            }
            defer { spinner.cancel() }
            let reply = try await withTaskExecutorPreference(loop) {
                let stream = try await IOTestHelpers.connect(port: port, on: loop)
                defer { stream.close() }
                try await stream.write([1, 2, 3])
                try await Task.sleep(.milliseconds(20))
                return try await IOTestHelpers.read(stream, count: 3)
            }
            #expect(reply == [1, 2, 3])
        }
    }
}
#endif
