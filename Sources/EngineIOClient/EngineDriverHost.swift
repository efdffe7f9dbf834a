package import EngineIOProtocol
package import RealtimeHTTP
package import RealtimeIO

/// What the transport drivers (``EnginePollingDriver``, ``EngineWebSocketDriver``) need from
/// the object that owns the session (`SocketEngine`, the upstream-compatible facade): the
/// attempt under its one lock, the machine to feed, and where finished writes and server
/// error objects go.
///
/// The drivers own their handles (``EngineConnectionAttempt/PollingHandles``,
/// ``EngineConnectionAttempt/WebSocketHandles``), which live in the attempt, inside the
/// host's lock: one lock per engine.
package protocol EngineDriverHost: AnyObject, Sendable {
    /// The transports; `nil` when this platform has none.
    var transports: EngineTransports? { get }
    /// The server's sticky cookies (RealtimeHTTP's RFC 6265 store).
    var stickyCookies: HTTPCookieStore { get }
    /// What requests use: the current attempt's options, or (before the first `connect()`)
    /// the options as set now.
    var requestOptions: EngineRequestOptions { get }
    /// The loop the drivers' tasks prefer (``EngineTask/start(on:_:)``): by default the
    /// transports' (``EngineTransports/eventLoop``), so they run where their connections'
    /// readiness arrives; `nil`: the global executor.
    var eventLoop: EventLoop? { get }

    /// Runs `body` on the current attempt, under the host's lock.
    func withAttempt<Result>(_ body: (inout EngineConnectionAttempt) -> Result) -> Result

    /// A WebSocket send finished (see ``sendFinished(_:generation:)``), and `takeTurn` runs on
    /// the attempt in the same critical section: the WebSocket writer takes its next batch
    /// there, one section per batch written instead of two. The WebSocket writer's only (the
    /// polling driver has no writer turn); not generic, since a generic section called through
    /// this protocol would look its result's metadata up on every send.
    func sendFinished(
        _ writeID: Int?, generation: Int,
        takingTurn takeTurn: (inout EngineConnectionAttempt) -> EngineWebSocketDriver.WriterTurn?
    ) -> EngineWebSocketDriver.WriterTurn?
    /// Feeds one input to the machine of attempt `generation` (nothing when that attempt is
    /// gone) and performs what it returns.
    ///
    /// - Returns: whether reads are held back now (the consumer fell behind), as read in the
    ///   last section the input took. When another thread performs the input's actions, what
    ///   it delivers may pause the reading after that: a `false` can then be one message late.
    ///   A reader that gets `false` reads on without asking ``readsPaused``.
    @discardableResult
    func drive(_ generation: Int, _ input: (inout EngineClientStateMachine) -> [EngineClientAction]) -> Bool
    /// Whether reads are held back now (the consumer fell behind): the WebSocket receive loop
    /// and each long-polling GET ask before they read, and wait in ``waitUntilReadable()``
    /// when they are, so the server meets TCP backpressure. Synchronous, so the common answer
    /// costs no nested `async` call (each costs the task a `swift_task_switch` and its
    /// executor-preference lock).
    var readsPaused: Bool { get }
    /// Returns once reads may go on; suspends (never blocking a thread) until the consumer
    /// caught up, or until the task is cancelled (the caller checks `Task.isCancelled` after).
    func waitUntilReadable() async
    /// The transport send carrying writes up to `writeID` of attempt `generation` is done.
    func sendFinished(_ writeID: Int?, generation: Int)
    /// A server error object read by a driver of attempt `generation` (``EngineServerError``).
    func deliverServerError(_ text: String, generation: Int)
}

extension EngineDriverHost {
    /// The transports' loop (``EngineTransports/eventLoop``).
    package var eventLoop: EventLoop? { self.transports?.eventLoop }
}

/// Starts the drivers' tasks.
package enum EngineTask {
    /// Starts a transport task (WebSocket receive and write loops, polling GET and POST): on
    /// `loop`'s thread (RealtimeIO's `EventLoop` as task executor) where there is one (the
    /// host's ``EngineDriverHost/eventLoop``, its connections' loop), so a readiness event
    /// resumes the task in place instead of waking a thread of the cooperative pool; on the
    /// global executor when `loop` is `nil`.
    ///
    /// - Important: These tasks only frame, parse and hand off (the consumer delivers to user
    ///   code on its own queue); nothing they run blocks (name resolution runs on RealtimeIO's
    ///   resolver threads). A TLS handshake's computation does run on the loop.
    package static func start(
        on loop: EventLoop?, _ operation: sending @escaping @isolated(any) () async -> Void
    ) -> Task<Void, Never> {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        if let loop { return Task(executorPreference: loop, operation: operation) }
        return Task(operation: operation)
        #else
        _ = loop
        return Task(operation: operation)
        #endif
    }
}
