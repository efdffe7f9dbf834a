import EventSource
import Foundation

// The ```swift blocks of Sources/EventSource/EventSource.docc, compiled here: scripts/docs.sh
// fails when a block of an article does not appear verbatim (indentation aside) in this
// target. Nothing here talks to a server; the functions are compiled, not run.

// MARK: - GettingStarted.md

func eventSourceGettingStarted() async {
    let eventSource = EventSource()
    let urlRequest = URLRequest(url: URL(string: "https://example.com/events")!)
    let dataTask = eventSource.dataTask(for: urlRequest)

    for await event in dataTask.events() {
        switch event {
        case .open:
            print("Connection was opened.")
        case .error(let error):
            print("Received an error:", error.localizedDescription)
        case .event(let event):
            print("Received an event", event.data ?? "")
        case .closed:
            print("Connection was closed.")
        }
    }
}

func eventSourceDataOnly(accessToken: String) async {
    var urlRequest = URLRequest(url: URL(string: "https://api.example.com/v1/chat/completions")!)
    urlRequest.httpMethod = "POST"
    urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
    urlRequest.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
    urlRequest.httpBody = Data(#"{"stream": true}"#.utf8)

    let eventSource = EventSource(mode: .dataOnly)
    var response = ""
    for await event in eventSource.dataTask(for: urlRequest).events() {
        if case .event(let event) = event, let data = event.data, data != "[DONE]" {
            response += data
        }
    }
    print(response)
}

func eventSourceParseOffline() {
    let event = ServerEvent.parse(from: Data("event: add\ndata: 1\n\n".utf8))
    print(event?.event ?? "message", event?.data ?? "")
}

struct LineEvent: EVEvent {
    var id: String?
    var event: String?
    var data: String?
    var other: [String: String]?
    var time: String?
}

/// One event per line (`type|data`), for a server that does not speak the event-stream format.
struct LineParser: EventParser {
    private var pending = Data()

    mutating func parse(_ data: Data) -> [EVEvent] {
        pending.append(data)
        var events: [EVEvent] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            let fields = line.split(separator: "|", maxSplits: 1).map(String.init)
            if fields.count == 2 {
                events.append(LineEvent(event: fields[0], data: fields[1]))
            }
        }
        return events
    }
}

func eventSourceCustomParser(urlRequest: URLRequest) async {
    let eventSource = EventSource(eventParser: LineParser())
    for await event in eventSource.dataTask(for: urlRequest).events() {
        if case .event(let event) = event, let line = event as? LineEvent {
            print(line.event ?? "", line.data ?? "")
        }
    }
}

// MARK: - ThreadingAndDelivery.md

func eventSourceCancelFromElsewhere(urlRequest: URLRequest) async {
    let dataTask = EventSource().dataTask(for: urlRequest)
    let reader = Task {
        for await event in dataTask.events() {
            print(event)
        }
    }
    try? await Task.sleep(nanoseconds: 30_000_000_000)
    dataTask.cancel()  // or reader.cancel(): either closes the connection at once
    await reader.value
}

func eventSourceReadState(dataTask: EventSource.DataTask) {
    // Safe from any task while another one iterates:
    print(dataTask.readyState, dataTask.lastMessageId)
}

// MARK: - Reconnection.md

actor TokenStore {
    func fresh() async -> String { "token" }
}

func eventSourceReconnection(urlRequest: URLRequest, tokens: TokenStore) async {
    let eventSource = EventSource(
        reconnectionPolicy: .exponentialBackoff(
            initialDelay: 1,
            maximumDelay: 30,
            maximumAttempts: 10,
            prepareRequest: { request, attempt in
                var request = request
                request.setValue("Bearer \(await tokens.fresh())", forHTTPHeaderField: "Authorization")
                return request
            }))
    for await event in eventSource.dataTask(for: urlRequest).events() {
        switch event {
        case .open: print("open (again after each reconnection)")
        case .event(let event): print(event.data ?? "")
        case .error(let error): print("lost the connection:", error.localizedDescription)
        case .closed: print("gave up, or the server said 204")
        }
    }
}

func eventSourceResume(urlRequest: URLRequest, storedId: String) -> EventSource.DataTask {
    let dataTask = EventSource().dataTask(for: urlRequest)
    dataTask.lastMessageId = storedId  // sent as Last-Event-ID with the first request
    return dataTask
}

func eventSourceRestart(dataTask: EventSource.DataTask) {
    // The user signed in again: drop the connection and reconnect now.
    dataTask.restart()
}

func eventSourceRetryField(dataTask: EventSource.DataTask) async {
    for await element in dataTask.events(including: [.comments, .retry]) {
        if let comment = element.comment {
            print("comment:", comment)
        } else if let retry = element.retryInterval {
            print("the server asks for a reconnection delay of", retry, "s")
        } else if case .event(let event)? = element.event {
            print(event.data ?? "")
        }
    }
}

// MARK: - TLSAndProxies.md

func eventSourceProxy(urlRequest: URLRequest) -> EventSource.DataTask {
    var eventSource = EventSource()
    eventSource.proxy = .http(host: "proxy.corp", port: 3128, username: "me", password: "secret")
    // or .socks5(host: "127.0.0.1", port: 1080), .url(proxyURL), .environment()
    return eventSource.dataTask(for: urlRequest)
}

func eventSourceTransport() -> [EventSource] {
    let urlSessionEverywhere = EventSource(transport: .urlSession)
    let nativeOnLinux = EventSource(transport: .native)
    return [urlSessionEverywhere, nativeOnLinux]
}

func eventSourceTLSErrors(dataTask: EventSource.DataTask) async {
    for await event in dataTask.events() {
        if case .error(let error as URLError) = event {
            switch error.code {
            case .serverCertificateUntrusted, .serverCertificateHasBadDate, .secureConnectionFailed:
                print("TLS refused:", error.localizedDescription)
            case .userAuthenticationRequired:
                print("the proxy refused the credentials")
            default:
                print(error.localizedDescription)
            }
        }
    }
}

// MARK: - LimitsAndErrors.md

func eventSourceLimits() -> EventSource {
    var eventSource = EventSource(timeoutInterval: 60)  // idle timeout
    eventSource.timeoutIntervalForResource = 3600  // one connection lasts at most 1 h
    eventSource.maximumEventSize = 1 << 20  // 1 MiB per event (16 MiB by default)
    return eventSource
}

func eventSourceErrors(dataTask: EventSource.DataTask) async {
    for await event in dataTask.events() {
        guard case .error(let error) = event else { continue }
        switch error {
        case let error as EventSourceError:
            switch error {
            case .connectionError(let statusCode, let body):
                print("HTTP \(statusCode):", String(decoding: body, as: UTF8.self))
            case .undefinedConnectionError:
                print("not an HTTP response")
            case .alreadyConsumed:
                print("events() was already called on this task")
            }
        case let limit as EventStreamLimitError:
            print("event over \(limit.limit) bytes:", limit.description)
        case let urlError as URLError:
            print("network:", urlError.code)
        default:
            print(error)
        }
    }
}

// MARK: - MigratingFromRecouseEventSource.md

func eventSourceRecouse016Timeout() -> EventSource {
    EventSource(timeoutInterval: 120)
}

func eventSourceRecouse017Timeouts() -> EventSource {
    EventSource(timeoutIntervalForRequest: 120, timeoutIntervalForResource: 3600)
}

func eventSourceAsyncStreamType(dataTask: EventSource.DataTask) -> AsyncStream<EventSource.EventType> {
    let stream: AsyncStream<EventSource.EventType> = dataTask.events().asyncStream
    return stream
}

func eventSourceSettableState(dataTask: EventSource.DataTask, storedId: String) {
    dataTask.lastMessageId = storedId
    if dataTask.readyState == .open {
        dataTask.readyState = .closed  // the same as cancel()
    }
}

// MARK: - ThreadingAndDelivery.md (event loops)

func eventSourceOnItsOwnEventLoops(urlRequest: URLRequest) async {
    let group = EventLoopGroup(loopCount: 1)
    var eventSource = EventSource()
    eventSource.eventLoopGroup = group
    let dataTask = eventSource.dataTask(for: urlRequest)
    for await event in dataTask.events() {
        print(event)
    }
    await group.shutdown()  // its connections end with .error(URLError(.networkConnectionLost))
}
