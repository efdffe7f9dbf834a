public import Foundation

public import class RealtimeIO.EventLoopGroup

/// A Server-Sent Events client (WHATWG HTML §9.2,
/// https://html.spec.whatwg.org/multipage/server-sent-events.html).
///
/// An `EventSource` holds settings; ``dataTask(for:)`` makes a ``DataTask`` for one request,
/// and iterating ``DataTask/events()`` connects and delivers what happens:
///
/// ```swift
/// let eventSource = EventSource()
/// let dataTask = eventSource.dataTask(for: URLRequest(url: url))
/// for await event in dataTask.events() {
///     switch event {
///     case .open: print("open")
///     case .event(let event): print(event.event ?? "message", event.data ?? "")
///     case .error(let error): print(error.localizedDescription)
///     case .closed: print("closed")
///     }
/// }
/// ```
///
/// The stream is parsed by the WHATWG parser (``Mode/default``), Recouse's data-only reading
/// (``Mode/dataOnly``), or a caller's ``EventParser``. Requests go through the project's
/// native HTTP/1.1 client on Linux and URLSession on Apple platforms (see ``Transport``).
public struct EventSource: Sendable {
    /// How the built-in parser reads events.
    public enum Mode: Sendable {
        /// The WHATWG event-stream interpretation: `data` lines joined with LF, one space after
        /// the colon removed, `event`/`id`/`retry` fields, comments ignored.
        case `default`
        /// Each event block (the lines up to an empty line, comments left out) is taken as one
        /// field: the text before its first colon names it and everything after, spaces and
        /// tabs trimmed from both ends, is its value, line breaks included. For APIs that send
        /// one `data:` payload per event (such as OpenAI's), whose payload is then never split.
        case dataOnly
    }

    /// The state of a data task's connection.
    public enum ReadyState: Int, Sendable {
        /// ``DataTask/events()`` has not been called.
        case none = -1
        /// Connecting, or waiting to reconnect.
        case connecting = 0
        /// The response was accepted; events flow.
        case open = 1
        /// Finished: ended, failed, or cancelled.
        case closed = 2
    }

    /// What a data task's event sequence delivers.
    public enum EventType: Sendable {
        /// A failure: an ``EventSourceError``, or a `URLError` for network failures and
        /// timeouts. Followed by `.closed` unless a reconnection policy reconnects.
        case error(any Error)
        /// One event from the server: a ``ServerEvent`` or a custom parser's type.
        case event(any EVEvent)
        /// The server accepted the request (HTTP 200, `text/event-stream`); after each
        /// reconnection too.
        case open
        /// The connection ended for good; the sequence ends after it.
        case closed
    }

    private let mode: Mode
    private let eventParser: (any EventParser)?

    /// Idle timeout in seconds: a connection that receives nothing for this long (while
    /// connecting or streaming) fails with `URLError(.timedOut)`. A stream that keeps
    /// receiving bytes, even only comments, is never cut.
    public var timeoutInterval: TimeInterval
    /// Whether and how data tasks reconnect; ``ReconnectionPolicy/disabled`` by default.
    public var reconnectionPolicy: ReconnectionPolicy
    /// The HTTP stack requests go through.
    public var transport: Transport
    /// The largest event accepted (its data, in bytes); a larger one fails the connection
    /// with ``EventStreamLimitError``. Also bounds the length of any line. 16 MiB by default.
    public var maximumEventSize: Int = 16 << 20
    /// The proxy the native transport connects through; ``Proxy/direct`` by default.
    public var proxy: Proxy = .direct
    /// The event loops the native transport's connections run on; `nil` (the default) for the
    /// process default group, `EventLoopGroup.shared` (one loop per core).
    ///
    /// ```swift
    /// let group = EventLoopGroup(loopCount: 1)
    /// var eventSource = EventSource()
    /// eventSource.eventLoopGroup = group
    /// let task = eventSource.dataTask(for: URLRequest(url: url))
    /// ```
    ///
    /// Each data task made after it is set takes one loop of the group (data tasks take its
    /// loops in turn) and keeps its own pool there: its connections (the first and every
    /// reconnection) and its timers (resource timeout, reconnection delay) run on that loop's
    /// thread. A group of one loop keeps every connection on that loop's thread. Shutting the group down
    /// ends its tasks' connections with `.error(URLError(.networkConnectionLost))`, and later
    /// connects fail the same way.
    ///
    /// - Important: It applies to the native transport (``Transport/native``, and
    ///   ``Transport/automatic`` on Linux). URLSession (``Transport/automatic`` on Apple
    ///   platforms, ``Transport/urlSession``) and custom transports ignore it: URLSession
    ///   schedules its own work.
    public var eventLoopGroup: EventLoopGroup?
    /// The event that ends a finite stream, such as `.data("[DONE]")` for OpenAI-style APIs;
    /// `nil` (the default) for none. The terminator is not delivered: the task closes its
    /// connection and delivers `.closed`, never reconnecting. See ``Terminator``.
    public var terminator: Terminator?
    /// Which server certificates `https` requests trust: ``Security/default`` (the system's
    /// roots, host names checked) unless set. See ``Security``.
    public var security: Security = .default

    /// The idle timeout, under the name of Recouse's EventSource 0.1.7 (and of
    /// `URLSessionConfiguration`): the same value as ``timeoutInterval``.
    public var timeoutIntervalForRequest: TimeInterval {
        get { self.timeoutInterval }
        set { self.timeoutInterval = newValue }
    }

    /// The longest one connection may last, in seconds, from sending its request, whether or
    /// not bytes keep arriving (`URLSessionConfiguration.timeoutIntervalForResource`'s
    /// meaning). When it passes, the connection fails with `URLError(.timedOut)`, and the
    /// ``reconnectionPolicy`` decides what follows. `.infinity` (the default of
    /// ``init(mode:eventParser:timeoutInterval:reconnectionPolicy:transport:)``) or any value
    /// `<= 0` sets no limit.
    public var timeoutIntervalForResource: TimeInterval = .infinity

    /// Creates an event source.
    ///
    /// - Parameters:
    ///   - mode: how the built-in parser reads events (ignored with a custom `eventParser`).
    ///   - eventParser: a parser for non-standard streams; each connection gets a fresh copy.
    ///   - timeoutInterval: the idle timeout in seconds (300 by default).
    ///   - reconnectionPolicy: reconnection after errors and end of stream (off by default).
    ///   - transport: the HTTP stack (``Transport/automatic`` by default).
    public init(
        mode: Mode = .default,
        eventParser: (any EventParser)? = nil,
        timeoutInterval: TimeInterval = 300,
        reconnectionPolicy: ReconnectionPolicy = .disabled,
        transport: Transport = .automatic
    ) {
        self.mode = mode
        self.eventParser = eventParser
        self.timeoutInterval = timeoutInterval
        self.reconnectionPolicy = reconnectionPolicy
        self.transport = transport
    }

    /// Creates an event source with both timeouts, with the labels of Recouse's EventSource
    /// 0.1.7.
    ///
    /// ```swift
    /// let eventSource = EventSource(timeoutIntervalForRequest: 60, timeoutIntervalForResource: 3600)
    /// ```
    ///
    /// - Parameters:
    ///   - mode: how the built-in parser reads events (ignored with a custom `eventParser`).
    ///   - eventParser: a parser for non-standard streams; each connection gets a fresh copy.
    ///   - timeoutIntervalForRequest: the idle timeout in seconds (``timeoutInterval``).
    ///   - timeoutIntervalForResource: the longest a connection may last, in seconds
    ///     (``timeoutIntervalForResource``).
    public init(
        mode: Mode = .default,
        eventParser: (any EventParser)? = nil,
        timeoutIntervalForRequest: TimeInterval,
        timeoutIntervalForResource: TimeInterval
    ) {
        self.init(mode: mode, eventParser: eventParser, timeoutInterval: timeoutIntervalForRequest)
        self.timeoutIntervalForResource = timeoutIntervalForResource
    }

    /// Creates an event source with an idle timeout, with the label of Recouse's EventSource
    /// 0.1.7. The resource timeout is `URLSessionConfiguration`'s default, seven days.
    ///
    /// - Parameters:
    ///   - mode: how the built-in parser reads events (ignored with a custom `eventParser`).
    ///   - eventParser: a parser for non-standard streams; each connection gets a fresh copy.
    ///   - timeoutIntervalForRequest: the idle timeout in seconds (``timeoutInterval``).
    public init(
        mode: Mode = .default,
        eventParser: (any EventParser)? = nil,
        timeoutIntervalForRequest: TimeInterval
    ) {
        self.init(
            mode: mode, eventParser: eventParser, timeoutIntervalForRequest: timeoutIntervalForRequest,
            timeoutIntervalForResource: Self.urlSessionResourceTimeout)
    }

    /// Creates an event source with a resource timeout, with the label of Recouse's
    /// EventSource 0.1.7. The idle timeout is `URLSessionConfiguration`'s default, 60 seconds.
    ///
    /// - Parameters:
    ///   - mode: how the built-in parser reads events (ignored with a custom `eventParser`).
    ///   - eventParser: a parser for non-standard streams; each connection gets a fresh copy.
    ///   - timeoutIntervalForResource: the longest a connection may last, in seconds
    ///     (``timeoutIntervalForResource``).
    public init(
        mode: Mode = .default,
        eventParser: (any EventParser)? = nil,
        timeoutIntervalForResource: TimeInterval
    ) {
        self.init(
            mode: mode, eventParser: eventParser, timeoutIntervalForRequest: Self.urlSessionRequestTimeout,
            timeoutIntervalForResource: timeoutIntervalForResource)
    }

    /// `URLSessionConfiguration.default`'s timeouts, for the 0.1.7 initializers given only one.
    static let urlSessionRequestTimeout: TimeInterval = 60
    static let urlSessionResourceTimeout: TimeInterval = 7 * 24 * 60 * 60

    /// Makes a task for `urlRequest`. Nothing is sent until its ``DataTask/events()`` is iterated.
    ///
    /// The request's method, headers and body are sent as given, plus
    /// `Accept: text/event-stream` and `Cache-Control: no-cache` (as browsers and the JS
    /// `eventsource` package send) unless the request sets them,
    /// and `Last-Event-ID` when there is a last event ID. Redirects are followed; credentials
    /// (`Authorization`, cookies) are not carried to another origin. Responses are never
    /// cached (the native client has no cache; URLSession is asked for none), so the
    /// request's `cachePolicy` has nothing to select; its `timeoutInterval` is replaced by
    /// ``timeoutInterval``, which is an idle timeout.
    public func dataTask(for urlRequest: URLRequest) -> DataTask {
        let decoder: EventDecoder.Kind
        if let eventParser = self.eventParser {
            decoder = .custom(eventParser)
        } else {
            decoder = self.mode == .dataOnly ? .dataOnly : .standard
        }
        let placed = self.transport.placed(on: self.eventLoopGroup)
        return DataTask(
            urlRequest: urlRequest,
            configuration: DataTask.Configuration(
                decoder: decoder,
                timeoutInterval: self.timeoutInterval,
                reconnectionPolicy: self.reconnectionPolicy,
                transport: placed.transport.proxied(self.proxy),
                maximumEventSize: self.maximumEventSize,
                resourceTimeout: self.timeoutIntervalForResource > 0 && self.timeoutIntervalForResource.isFinite
                    ? EventSourceStateMachine.duration(self.timeoutIntervalForResource) : nil,
                terminator: self.terminator,
                security: self.security,
                timers: placed.timers))
    }
}
