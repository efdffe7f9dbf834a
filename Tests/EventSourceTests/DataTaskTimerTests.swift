import Foundation
import RealtimeHTTP
import RealtimeIO
import RealtimeSync
import RealtimeTime
import TestSupport
import Testing

@testable import EventSource

/// A data task's timers (the reconnection delay, the resource timeout) are its
/// ``TimerSource``'s: on a manual clock nothing waits for real time, and every timer ends
/// with the task.
@Suite(TestTimeLimit.minutes(1)) struct DataTaskTimerTests {
    private let url = URL(string: "http://127.0.0.1:9/stream")!
    private let refused = HTTPClientError(.network(.connectionRefused), "refused")

    /// `eventSource`'s task for the URL, with its timers on `clock`.
    private func task(_ eventSource: EventSource, timers clock: ManualTimerSource) -> EventSource.DataTask {
        let made = eventSource.dataTask(for: URLRequest(url: self.url))
        var configuration = made.configuration
        configuration.timers = clock
        return EventSource.DataTask(urlRequest: made.urlRequest, configuration: configuration)
    }

    /// Collects the task's events in another task.
    private func collect(_ task: EventSource.DataTask) -> (events: LockedValue<[String]>, done: Task<Void, Never>) {
        let events = LockedValue<[String]>([])
        let done = Task {
            for await event in task.events() { events.withLock { $0.append(event.summary) } }
        }
        return (events, done)
    }

    @Test func theReconnectionDelayIsATimerOfTheTasksSource() async {
        let clock = ManualTimerSource()
        let transport = ScriptedHTTPTransport([.failure(self.refused), .success(.init(status: 204, headers: [:]))])
        let eventSource = EventSource(
            reconnectionPolicy: .exponentialBackoff(initialDelay: 5, jitter: 0), transport: .custom(transport))
        let task = self.task(eventSource, timers: clock)
        let (events, done) = self.collect(task)

        #expect(await clock.waitForScheduledTimers(1))
        #expect(clock.nextDeadline == clock.now + .seconds(5))
        clock.advance(by: .milliseconds(4_999))
        #expect(transport.requests.count == 1, "reconnected before the delay")
        clock.advance(by: .milliseconds(1))
        await done.value
        #expect(transport.requests.count == 2)
        #expect(events.withLock { $0 } == ["error(url \(URLError.Code.cannotConnectToHost.rawValue))", "closed"])
        #expect(clock.scheduledCount == 0)
    }

    /// ``EventSource/DataTask/cancel()`` during the reconnection delay ends the stream at once
    /// and cancels the delay's timer.
    @Test func cancelDuringTheDelayCancelsItsTimer() async {
        let clock = ManualTimerSource()
        let transport = ScriptedHTTPTransport([.failure(self.refused)])
        let eventSource = EventSource(
            reconnectionPolicy: .exponentialBackoff(initialDelay: 3_600, jitter: 0), transport: .custom(transport))
        let task = self.task(eventSource, timers: clock)
        let (events, done) = self.collect(task)
        #expect(await clock.waitForScheduledTimers(1))
        task.cancel()
        await done.value
        #expect(events.withLock { $0 } == ["error(url \(URLError.Code.cannotConnectToHost.rawValue))"])
        #expect(clock.scheduledCount == 0)
        #expect(transport.requests.count == 1)
    }

    /// The resource timeout is armed for each connection on the task's source and ends the
    /// connection when the clock reaches it.
    @Test func theResourceTimeoutIsATimerOfTheTasksSource() async throws {
        let clock = ManualTimerSource()
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: .hang))])
        var eventSource = EventSource(timeoutIntervalForRequest: 10, timeoutIntervalForResource: 60)
        eventSource.transport = .custom(transport)
        let task = self.task(eventSource, timers: clock)
        let (events, done) = self.collect(task)
        #expect(await clock.waitForScheduledTimers(1))
        #expect(clock.nextDeadline == clock.now + .seconds(60))
        let opened = await ProcessResources.eventually { events.withLock { $0 }.count == 2 }
        #expect(opened)
        clock.advance(by: .seconds(60))
        await done.value
        #expect(events.withLock { $0 } == ["open", "event(-,-,a)", "error(url \(URLError.Code.timedOut.rawValue))", "closed"])
        #expect(try #require(transport.bodies.first).isCancelled)
        #expect(clock.scheduledCount == 0)
    }

    /// A connection that ends before the resource timeout takes its timer with it.
    @Test func aConnectionThatEndsCancelsItsResourceTimer() async {
        let clock = ManualTimerSource()
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        var eventSource = EventSource(timeoutIntervalForRequest: 10, timeoutIntervalForResource: 60)
        eventSource.transport = .custom(transport)
        let events = await summaries(of: self.task(eventSource, timers: clock))
        #expect(events == ["open", "event(-,-,a)", "closed"])
        #expect(clock.scheduledCount == 0)
    }

    /// Without a group (or with URLSession, which ignores it) a task's timers are a loop of
    /// the process default group; with a group and the native client, the loop its client
    /// connects on.
    @Test func theTimersFollowTheLoopOfTheTasksConnections() async {
        let group = EventLoopGroup(loopCount: 1)
        var eventSource = EventSource(transport: .native)
        #expect(eventSource.dataTask(for: URLRequest(url: self.url)).configuration.timers is EventLoop)
        eventSource.eventLoopGroup = group
        let onGroup = eventSource.dataTask(for: URLRequest(url: self.url)).configuration.timers as? EventLoop
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        #expect(onGroup === group.loops[0])
        #else
        #expect(onGroup != nil)
        #endif
        eventSource.transport = .urlSession
        let ignored = eventSource.dataTask(for: URLRequest(url: self.url)).configuration.timers as? EventLoop
        #expect(ignored != nil && ignored !== onGroup)
        await group.shutdown()
    }
}
