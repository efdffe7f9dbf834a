import Foundation
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@testable import EventSource

/// EventSource with a reconnection policy through `fault_proxy.py`: the connection is cut in
/// the middle of events (and of the response head), truncated, stalled past the idle timeout
/// and refused for a while, again and again; the server honours `Last-Event-ID`. Every event
/// arrives exactly once, in order, and nothing is left afterwards.
@Suite(.serialized) struct EventSourceFaultInjectionTests {
    /// The event loop's registrations (0 without the native stack).
    static var loopRegistrations: Int {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        EventLoopGroup.shared.registeredDescriptorCount
        #else
        0
        #endif
    }

    @Test(arguments: LoopbackTests.transports)
    func resumesWithLastEventIDAndDeliversEveryEventOnceInOrderAcrossRepeatedCuts(
        transport: EventSource.Transport
    ) async throws {
        let total = 300
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let proxy = try await FaultProxy.start(targetPort: server.port)
        defer { proxy.stop() }
        // A first stream through this transport, so what it creates once per process (the
        // shared URLSession's socket pair) is in the baseline.
        _ = await summaries(
            of: EventSource(timeoutInterval: 10, transport: transport)
                .dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/events?count=1")!)))
        let descriptors = ProcessResources.openDescriptorCount
        let registrations = Self.loopRegistrations
        let targets = ProcessResources.descriptorTargets

        let policy = EventSource.ReconnectionPolicy.exponentialBackoff(
            initialDelay: 0.1, maximumDelay: 0.5, jitter: 0, healthyConnectionInterval: 0.2)
        let eventSource = EventSource(timeoutInterval: 1.5, reconnectionPolicy: policy, transport: transport)
        let task = eventSource.dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:\(proxy.port)/replay?total=\(total)")!))

        // Cuts at varying offsets (inside the head, inside `id:` or `data:` lines, between
        // them), a truncation, a stall past the 1.5 s idle timeout and a refusal. One fault per
        // 20 events delivered, so a loaded machine cannot deliver all 300 before the faults.
        let delivered = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let faults = Task {
            let schedule: [FaultProxy.Fault] = [
                .resetAfter(bytes: 7), .resetAfter(bytes: 150), .resetAfter(bytes: 93), .truncateAfter(bytes: 131),
                .resetAfter(bytes: 1), .stall, .resetAfter(bytes: 240), .refuse(seconds: 0.5), .reset,
                .resetAfter(bytes: 118), .resetAfter(bytes: 12), .truncateAfter(bytes: 100),
            ]
            var progress = delivered.stream.makeAsyncIterator()
            for (index, fault) in schedule.enumerated() {
                while let count = await progress.next(), count < 20 * (index + 1) {}
                try await proxy.inject(fault)
                if case .stall = fault {
                    try await Task.sleep(.seconds(2.5))
                    try await proxy.inject(.resume)
                }
            }
        }

        var ids: [String] = []
        var errors = 0
        var opens = 0
        var closed = false
        let deadline = MonotonicInstant.now + .seconds(60)
        for await event in task.events() {
            switch event {
            case .open: opens += 1
            case .error: errors += 1
            case .event(let event):
                ids.append(event.id ?? "-")
                delivered.continuation.yield(ids.count)
                #expect(event.data == "event \(event.id ?? "-")")
            case .closed: closed = true
            }
            if MonotonicInstant.now > deadline { break }
        }
        delivered.continuation.finish()
        faults.cancel()
        _ = await faults.result

        #expect(closed)
        #expect(ids == (1...total).map(String.init), "got \(ids.count) events: \(Self.firstGap(ids))")
        #expect(opens >= 5 && errors >= 5, "opens \(opens), errors \(errors)")
        // Every reconnection named the last event delivered, never one only half received.
        let resumed = server.lines.filter { $0.hasPrefix("REQUEST GET /replay last-event-id=") }
            .compactMap { Int($0.split(separator: "=")[1].split(separator: " ")[0]) }
        #expect(resumed == resumed.sorted() && !resumed.isEmpty, "\(resumed)")
        print("[fault] EventSource \(transport): \(ids.count) events, \(opens) opens, \(errors) errors, resumed at \(resumed)")

        #expect(
            await ProcessResources.eventually {
                ProcessResources.openDescriptorCount <= descriptors
                    && Self.loopRegistrations <= registrations
            },
            "descriptors \(ProcessResources.openDescriptorCount) > \(descriptors), registered \(Self.loopRegistrations) (was \(registrations)): new \(ProcessResources.descriptorTargets.filter { !targets.contains($0) }), gone \(targets.filter { !ProcessResources.descriptorTargets.contains($0) })"
        )
        #expect(try await proxy.stats().open == 0)
    }

    static func firstGap(_ ids: [String]) -> String {
        for (index, id) in ids.enumerated() where id != String(index + 1) {
            return "at \(index): \(ids[max(0, index - 2)..<min(ids.count, index + 3)])"
        }
        return "no gap"
    }
}
