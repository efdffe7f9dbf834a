import EngineIOClient
import EngineIOProtocol
import Foundation
import RealtimeHTTP
import RealtimeTransport
import Testing

/// The attempt's own rules, without I/O: a new attempt hands over a client close that is still
/// under way instead of cancelling it, and the polling URL keeps the app's query as it was
/// encoded.
@Suite struct EngineConnectionAttemptTests {
    static let sid = "lv_VI97HAXpY6yYWAAAC"
    static let openText = #"0{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#

    static func options(_ url: String = "http://localhost/socket.io/?EIO=4&transport=polling") -> EngineRequestOptions {
        EngineRequestOptions(
            machine: .init(forcePolling: true), urlPolling: URL(string: url)!, urlWebSocket: URL(string: "ws://localhost/socket.io/")!,
            extraHeaders: [], cookies: [], tls: TLSConfiguration(), proxy: .direct, compress: false)
    }

    /// An attempt past its handshake over polling, with a `GET` and a `POST` in flight.
    static func openAttempt(_ get: Task<Void, Never>, _ post: Task<Void, Never>) -> EngineConnectionAttempt {
        var attempt = EngineConnectionAttempt()
        _ = attempt.reset(options: Self.options())
        _ = attempt.machine.start()
        _ = attempt.machine.pollingGETCompleted(body: Array(Self.openText.utf8), now: .now)
        attempt.polling.getTask = get
        attempt.polling.postTask = post
        return attempt
    }

    static func pending() -> Task<Void, Never> {
        Task { while !Task.isCancelled { await Task.yield() } }
    }

    /// Runs `body` with a `GET` and a `POST` in flight, both cancelled when it returns.
    static func withRequestsInFlight(_ body: (_ get: Task<Void, Never>, _ post: Task<Void, Never>) throws -> Void) rethrows {
        let (get, post) = (Self.pending(), Self.pending())
        defer {
            get.cancel()
            post.cancel()
        }
        try body(get, post)
    }

    @Test func aNewAttemptHandsOverAClientCloseUnderWay() throws {
        try Self.withRequestsInFlight { get, post in
            var attempt = Self.openAttempt(get, post)
            _ = attempt.machine.send(.message("a"))
            _ = attempt.machine.close()
            let generation = attempt.generation

            let teardown = attempt.reset(options: Self.options())
            #expect(attempt.generation == generation + 1)
            // The requests in flight are the close's, not tasks to cancel.
            #expect(teardown.tasks.isEmpty)
            let close = try #require(teardown.pollingClose)
            #expect(close.post == post)
            #expect(close.get == get)
            #expect(close.closePOST?.sid == Self.sid)
            #expect(close.closePOST.map { String(decoding: $0.body, as: UTF8.self) } == "1")
            #expect(attempt.polling.getTask == nil && attempt.polling.postTask == nil)
        }
    }

    @Test func aNewAttemptCancelsAnOpenSessionsRequests() {
        Self.withRequestsInFlight { get, post in
            var attempt = Self.openAttempt(get, post)
            let teardown = attempt.reset(options: Self.options())
            #expect(teardown.pollingClose == nil)
            #expect(Set(teardown.tasks) == [get, post])
        }
    }

    @Test func theClosePOSTWaitsForThePOSTInFlightAndCutsTheGETAfter() async {
        let postDone = Task<Void, Never> {}
        let get = Self.pending()
        var attempt = Self.openAttempt(get, postDone)
        _ = attempt.machine.close()
        let close = try! #require(attempt.reset(options: Self.options()).pollingClose)
        // No host: the close POST is not sent, the GET is still cut.
        await close.finish { nil }
        #expect(get.isCancelled)
        #expect(!postDone.isCancelled)
    }

    @Test func thePollingURLAppendsTheSessionAndKeepsTheAppsEncoding() {
        let base = URL(string: "http://localhost/socket.io/?EIO=4&transport=polling&token=a%2Bb")!
        let prefix = EngineConnectionAttempt.PollingURLPrefix(base: base, sid: Self.sid)
        #expect(prefix.sid == Self.sid)
        #expect(prefix.text.hasPrefix("http://localhost/socket.io/?EIO=4&transport=polling&token=a%2Bb&sid=\(Self.sid)&t="))
        // The request target is the URL's own, as the HTTP client would read it out of it.
        let target = prefix.target
        #expect(target == "/socket.io/?EIO=4&transport=polling&token=a%2Bb&sid=\(Self.sid)&t=")
        let url = URL(string: prefix.text + "7")!
        #expect((target ?? "") + "7" == url.httpRequestTarget)
        // A base URL with no path still gets `/`.
        let bare = EngineConnectionAttempt.PollingURLPrefix(base: URL(string: "http://localhost?EIO=4&transport=polling")!, sid: Self.sid)
        #expect(bare.target?.hasPrefix("/?EIO=4&transport=polling&sid=") == true)
        #expect((bare.target ?? "") + "1" == URL(string: bare.text + "1")!.httpRequestTarget)
    }
}
