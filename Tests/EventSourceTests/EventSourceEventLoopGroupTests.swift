import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import EventSource

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
@testable import RealtimeIO
#endif

/// `EventSource.eventLoopGroup`: a data task's native connections live on the given group, and
/// shutting the group down ends them with a typed error instead of a hang.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct EventSourceEventLoopGroupTests {
    private func request(_ server: TestServer, _ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
    }

    @Test func theDefaultIsTheProcessDefaultGroup() {
        #expect(EventSource().eventLoopGroup == nil)
    }

    #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
    @Test(arguments: [EventSource.Transport.native, .automatic])
    func aOneLoopGroupCarriesTheStream(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let group = EventLoopGroup(loopCount: 1)
        var eventSource = EventSource(timeoutInterval: 10, transport: transport)
        eventSource.eventLoopGroup = group
        let task = eventSource.dataTask(for: self.request(server, "/events?count=3&crlf=1"))
        var seen: [String] = []
        var registeredOnGroup: [Int] = []
        for await event in task.events() {
            seen.append(event.summary)
            // While the stream is open its socket is registered on the group's one loop.
            registeredOnGroup.append(group.loops[0].registeredDescriptorCount)
        }
        #expect(seen == ["open", "event(tick,1,event 1)", "event(tick,2,event 2)", "event(tick,3,event 3)", "closed"])
        #expect(registeredOnGroup.prefix(4).allSatisfy { $0 == 1 }, "registrations on the group: \(registeredOnGroup)")
        await group.shutdown()
    }

    @Test func shuttingTheGroupDownEndsTheStreamTyped() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let group = EventLoopGroup(loopCount: 1)
        var eventSource = EventSource(timeoutInterval: 60, transport: .native)
        eventSource.eventLoopGroup = group
        let task = eventSource.dataTask(for: self.request(server, "/stall"))
        var seen: [String] = []
        for await event in task.events() {
            seen.append(event.summary)
            if case .event = event {
                // The server now stalls: the next read waits on the loop until it shuts down.
                Task { await group.shutdown() }
            }
        }
        let lost = URLError.Code.networkConnectionLost.rawValue
        #expect(seen == ["open", "event(-,-,before the stall)", "error(url \(lost))", "closed"])
        // A second task on the dead group fails at once, the same way.
        let again = await summaries(of: eventSource.dataTask(for: self.request(server, "/events?count=1")))
        #expect(again == ["error(url \(lost))", "closed"])
    }
    #endif

    @Test func urlSessionIgnoresTheGroup() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let group = EventLoopGroup(loopCount: 1)
        await group.shutdown()
        var eventSource = EventSource(timeoutInterval: 10, transport: .urlSession)
        eventSource.eventLoopGroup = group
        let events = await summaries(of: eventSource.dataTask(for: self.request(server, "/events?count=2")))
        #expect(events == ["open", "event(tick,1,event 1)", "event(tick,2,event 2)", "closed"])
    }
}
