// Every example of the API contract (`shared/seeds/003_043014ce2fe67117.txt`), unchanged
// inside the functions and types that wrap it, so that compiling this file proves the
// public API matches. What is not the seed's, and why:
// - `MyCustomParser` (a placeholder there) and `ChatCompletionChunk` (undefined there) are
//   defined here, and the README's `eventDevent` typo reads `event`;
// - two `print` lines of the seed lost the backslash of an interpolation whose expression
//   holds a string literal (`"Received: (serverEvent.data ?? "")"`), which is a syntax error
//   in any Swift; they read `\(` here. The other backslash-less `(x)` lines compile and stay;
// - `public import EventSource`: this package enables `InternalImportsByDefault`, under which
//   the seed's `public var description` in an extension of `EventSource.ReadyState` needs a
//   public import (in plain Swift 6 mode `import` is already public);
// - Swift 6 rejects every use of C's mutable global `stdout`, on Linux and Darwin alike, so
//   the OpenAI example's `fflush(stdout)` finds `stdout` in `StandardOutput.swift` instead.
public import EventSource
import Foundation
import Testing

/// The seed's placeholder for a custom parser.
struct MyCustomParser: EventParser {
    mutating func parse(_ data: Data) -> [EVEvent] { [] }
}

/// Undefined in the seed's README example.
struct ChatCompletionChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable { let content: String? }
        let delta: Delta
    }
    let choices: [Choice]
}

// MARK: - Initialize EventSource in Swift

func seedInitializeEventSource() -> [EventSource] {
    // Standard SSE mode with default timeout (300 seconds)
    let eventSource = EventSource()

    // Data-only mode for simplified APIs (like OpenAI)
    let streamingEventSource = EventSource(mode: .dataOnly)

    // Custom timeout (60 seconds)
    let shortTimeoutEventSource = EventSource(timeoutInterval: 60)

    // Custom parser for non-standard formats
    let customEventSource = EventSource(
        mode: .default,
        eventParser: MyCustomParser(),
        timeoutInterval: 120
    )
    return [eventSource, streamingEventSource, shortTimeoutEventSource, customEventSource]
}

// MARK: - Connect to SSE Endpoint in Swift

func seedConnectToEndpoint() {
    Task {
        let eventSource = EventSource()
        let url = URL(string: "https://example.com/events")!
        let urlRequest = URLRequest(url: url)
        let dataTask = eventSource.dataTask(for: urlRequest)

        do {
            for await event in dataTask.events() {
                switch event {
                case .open:
                    print("✓ Connection established")
                    print("State: \(dataTask.readyState)")

                case .event(let serverEvent):
                    print("Event Type: \(serverEvent.event ?? "message")")
                    print("Event ID: \(serverEvent.id ?? "none")")
                    print("Data: \(serverEvent.data ?? "")")

                    // Handle specific event types
                    if serverEvent.event == "update" {
                        // Process update event
                    } else if serverEvent.event == "notification" {
                        // Process notification event
                    }

                case .error(let error):
                    print("✗ Error: \(error.localizedDescription)")
                    if let esError = error as? EventSourceError {
                        switch esError {
                        case .connectionError(let statusCode, let response):
                            print("HTTP \(statusCode): \(String(data: response, encoding: .utf8) ?? "")")
                        default:
                            break
                        }
                    }

                case .closed:
                    print("✓ Connection closed gracefully")
                    break
                }
            }
        }
    }
}

// MARK: - Monitor Live Data Feeds with EventSource in Swift

actor LiveDataMonitor {
    private var dataTask: EventSource.DataTask?
    private var connectionTask: Task<Void, Never>?

    func connect(to url: URL) {
        connectionTask?.cancel()

        connectionTask = Task {
            let eventSource = EventSource(timeoutInterval: 120)
            var urlRequest = URLRequest(url: url)

            // Add Last-Event-ID for reconnection
            if let lastId = dataTask?.lastMessageId, !lastId.isEmpty {
                urlRequest.setValue(lastId, forHTTPHeaderField: "Last-Event-ID")
                print("Reconnecting with Last-Event-ID: (lastId)")
            }

            let newDataTask = eventSource.dataTask(for: urlRequest)
            self.dataTask = newDataTask

            for await event in newDataTask.events() {
                print("State: (newDataTask.readyState.description)")

                switch event {
                case .open:
                    print("📡 Connected to live feed")

                case .event(let serverEvent):
                    // Store event ID for reconnection
                    if let id = serverEvent.id {
                        print("Last Event ID: (id)")
                    }

                    // Process data
                    if let jsonData = serverEvent.data?.data(using: .utf8) {
                        handleLiveData(jsonData)
                    }

                case .error(let error):
                    print("📡 Connection error: (error)")
                    // Implement retry logic
                    try? await Task.sleep(nanoseconds: 5_000_000_000)  // 5 seconds
                    connect(to: url)

                case .closed:
                    print("📡 Connection closed")
                }
            }
        }
    }

    func disconnect() {
        connectionTask?.cancel()
        dataTask = nil
    }

    private func handleLiveData(_ data: Data) {
        // Process incoming data
        if let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            print("Received: (json)")
        }
    }
}

extension EventSource.ReadyState: CustomStringConvertible {
    public var description: String {
        switch self {
        case .none: return "none"
        case .connecting: return "connecting"
        case .open: return "open"
        case .closed: return "closed"
        }
    }
}

func seedLiveDataMonitorUsage() async {
    // Usage
    let monitor = LiveDataMonitor()
    await monitor.connect(to: URL(string: "https://api.example.com/live-feed")!)

    // Later, disconnect
    await monitor.disconnect()
}

// MARK: - Configure URLRequest with Auth, Headers, and POST Data for EventSource

func seedConfigureRequest() {
    Task {
        var urlRequest = URLRequest(url: URL(string: "https://secure-api.example.com/stream")!)

        // HTTP method (default is GET, but can use POST for streaming APIs)
        urlRequest.httpMethod = "POST"

        // Authentication
        urlRequest.setValue("Bearer (accessToken)", forHTTPHeaderField: "Authorization")

        // Custom headers
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("gzip, deflate", forHTTPHeaderField: "Accept-Encoding")
        urlRequest.setValue("MyApp/1.0", forHTTPHeaderField: "User-Agent")

        // Request body for POST
        let requestBody: [String: Any] = [
            "query": "subscribe",
            "topics": ["news", "updates"],
            "format": "json",
        ]
        urlRequest.httpBody = try! JSONSerialization.data(withJSONObject: requestBody)

        // Cache policy
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData

        // Note: EventSource automatically adds:
        // - Accept: text/event-stream
        // - Cache-Control: no-store

        let eventSource = EventSource(timeoutInterval: 180)
        let dataTask = eventSource.dataTask(for: urlRequest)

        for await event in dataTask.events() {
            switch event {
            case .event(let serverEvent):
                print("Received: \(serverEvent.data ?? "")")
            default:
                break
            }
        }
    }
}

// MARK: - SSE Client with Retry Logic in Swift

actor ResilientSSEClient {
    private var connectionTask: Task<Void, Never>?
    private var retryCount = 0
    private let maxRetries = 5

    func connect(to url: URL) {
        connectionTask?.cancel()
        retryCount = 0

        connectionTask = Task {
            await connectWithRetry(url: url)
        }
    }

    private func connectWithRetry(url: URL) async {
        while retryCount < maxRetries && !Task.isCancelled {
            let eventSource = EventSource(timeoutInterval: 60)
            let urlRequest = URLRequest(url: url)
            let dataTask = eventSource.dataTask(for: urlRequest)

            var shouldRetry = false

            for await event in dataTask.events() {
                switch event {
                case .open:
                    retryCount = 0  // Reset on successful connection
                    print("✓ Connected successfully")

                case .event(let serverEvent):
                    // Process event
                    if let data = serverEvent.data {
                        print("Data: \(data)")
                    }

                case .error(let error):
                    print("✗ Error: \(error.localizedDescription)")

                    if let esError = error as? EventSourceError {
                        switch esError {
                        case .connectionError(let statusCode, _):
                            // Retry on 5xx errors, not on 4xx
                            shouldRetry = statusCode >= 500
                            print("HTTP \(statusCode) - Retry: \(shouldRetry)")

                        case .undefinedConnectionError:
                            shouldRetry = true

                        case .alreadyConsumed:
                            shouldRetry = false
                        }
                    } else {
                        // Network errors - retry
                        shouldRetry = true
                    }

                case .closed:
                    print("Connection closed")
                    shouldRetry = true
                }
            }

            // Implement retry with exponential backoff
            if shouldRetry && retryCount < maxRetries {
                retryCount += 1
                let delay = min(pow(2.0, Double(retryCount)), 32.0)  // Max 32 seconds
                print("⏳ Retrying in \(delay) seconds (attempt \(retryCount)/\(maxRetries))")

                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            } else {
                break
            }
        }

        if retryCount >= maxRetries {
            print("✗ Max retries reached. Giving up.")
        }
    }

    func disconnect() {
        connectionTask?.cancel()
        connectionTask = nil
    }
}

func seedResilientClientUsage() async {
    // Usage
    let client = ResilientSSEClient()
    await client.connect(to: URL(string: "https://api.example.com/events")!)
}

// MARK: - Connect to SSE Endpoint with Swift Concurrency (README)

func seedReadmeConnect(urlRequest: URLRequest) -> Task<Void, Never> {
    let task = Task {
        let eventSource = EventSource()
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
    return task
}

// MARK: - Consume OpenAI Streaming API with EventSource in Swift

struct ChatChunk: Codable {
    struct Delta: Codable {
        let content: String?
    }
    struct Choice: Codable {
        let delta: Delta
    }
    let choices: [Choice]
}

func seedOpenAIStreaming() {
    Task {
        let apiKey = "sk-…"
        var urlRequest = URLRequest(url: URL(string: "https://api.openai.com/v1/chat/completions")!)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("Bearer (apiKey)", forHTTPHeaderField: "Authorization")

        let requestBody: [String: Any] = [
            "model": "gpt-4o-mini",
            "messages": [
                ["role": "user", "content": "Write a haiku about Swift programming"]
            ],
            "stream": true,
        ]
        urlRequest.httpBody = try! JSONSerialization.data(withJSONObject: requestBody)

        let eventSource = EventSource(mode: .dataOnly)
        let dataTask = eventSource.dataTask(for: urlRequest)

        var fullResponse = ""

        for await event in dataTask.events() {
            switch event {
            case .event(let serverEvent):
                guard let data = serverEvent.data else { continue }

                // Handle [DONE] signal
                if data == "[DONE]" {
                    print("\n✓ Stream complete")
                    break
                }

                // Parse JSON chunk
                if let jsonData = data.data(using: .utf8),
                    let chunk = try? JSONDecoder().decode(ChatChunk.self, from: jsonData),
                    let content = chunk.choices.first?.delta.content
                {
                    fullResponse += content
                    print(content, terminator: "")
                    fflush(stdout)
                }

            case .error(let error):
                print("\n✗ Streaming error: (error)")

            default:
                break
            }
        }

        print("\n\nFull Response: (fullResponse)")
    }
}

// MARK: - Implement Custom SSE Event Parser in Swift

// Custom event structure
struct CustomEvent: EVEvent {
    var id: String?
    var event: String?
    var data: String?
    var other: [String: String]?
    var time: String?
    var customField: String?  // Additional field
}

// Custom parser implementation
struct CustomEventParser: EventParser {
    private var buffer = Data()

    mutating func parse(_ data: Data) -> [EVEvent] {
        buffer.append(data)
        var events: [EVEvent] = []

        // Custom parsing logic
        let lines = buffer.split(separator: UInt8(ascii: "\n"))

        for line in lines {
            guard let lineString = String(data: Data(line), encoding: .utf8) else { continue }

            // Example: Parse custom format like "TYPE|ID|DATA"
            let components = lineString.split(separator: "|")
            if components.count >= 3 {
                let event = CustomEvent(
                    id: String(components[1]),
                    event: String(components[0]),
                    data: String(components[2]),
                    other: nil,
                    time: nil,
                    customField: components.count > 3 ? String(components[3]) : nil
                )
                events.append(event)
            }
        }

        // Clear buffer after processing
        if !events.isEmpty {
            buffer.removeAll()
        }

        return events
    }
}

func seedCustomParserUsage() {
    // Usage with custom parser
    Task {
        let eventSource = EventSource(
            mode: .default,
            eventParser: CustomEventParser(),
            timeoutInterval: 300
        )

        let urlRequest = URLRequest(url: URL(string: "https://api.custom.com/events")!)
        let dataTask = eventSource.dataTask(for: urlRequest)

        for await event in dataTask.events() {
            if case .event(let serverEvent) = event,
                let customEvent = serverEvent as? CustomEvent
            {
                print("Custom Field: \(customEvent.customField ?? "none")")
            }
        }
    }
}

// MARK: - Static SSE Event Parsing in Swift

func seedStaticParsing() {
    // Parse standard SSE format
    let sseData = """
        id: 123
        event: notification
        data: {"message": "Hello World"}

        id: 124
        event: update
        data: {"status": "complete"}
        data: {"progress": 100}

        """.data(using: .utf8)!

    if let event = ServerEvent.parse(from: sseData, mode: .default) {
        print("Event ID: \(event.id ?? "none")")
        print("Event Type: \(event.event ?? "message")")
        print("Data: \(event.data ?? "")")
        print("Is Empty: \(event.isEmpty)")
    }

    // Parse data-only format
    let dataOnlyPayload = """
        data: {"content": "Swift is awesome"}

        """.data(using: .utf8)!

    if let event = ServerEvent.parse(from: dataOnlyPayload, mode: .dataOnly) {
        print("Data: \(event.data ?? "")")
    }

    // Multi-line data handling
    let multiLineData = """
        event: message
        data: Line 1
        data: Line 2
        data: Line 3

        """.data(using: .utf8)!

    if let event = ServerEvent.parse(from: multiLineData, mode: .default) {
        // Multi-line data is concatenated with newlines
        print("Multi-line Data: \(event.data ?? "")")
        // Output: "Line 1\nLine 2\nLine 3"
    }
}

// MARK: - Data-Only Mode for SSE with Swift Concurrency (README)

func seedReadmeDataOnly() {
    Task {
        var urlRequest = URLRequest(url: URL(string: "https://api.openai.com/v1/chat/completions")!)
        urlRequest.allHTTPHeaderFields = [
            "Content-Type": "application/json",
            "Authorization": "Bearer (accessToken)",
        ]
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = """
            {
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "user", "content": "Why is the sky blue?"}
                ],
                "stream": true
            }
            """.data(using: .utf8)!

        let eventSource = EventSource(mode: .dataOnly)
        let dataTask = eventSource.dataTask(for: urlRequest)

        var response: String = ""

        for await event in dataTask.events() {
            switch event {
            case .event(let event):
                if let data = event.data?.data(using: .utf8) {
                    let chunk = try? JSONDecoder().decode(ChatCompletionChunk.self, from: data)
                    let string = chunk?.choices.first?.delta.content ?? ""
                    response += string
                }
            default:
                break
            }
        }

        print(response)
    }
}

// MARK: - What the seed's text promises, checked

@Suite struct SeedSnippetsTests {
    @Test func initializersKeepTheirSettings() {
        let sources = seedInitializeEventSource()
        #expect(sources.map(\.timeoutInterval) == [300, 300, 60, 120])
    }

    @Test func staticParsingExampleRunsAndMatchesItsComments() throws {
        seedStaticParsing()
        let multiLine = try #require(ServerEvent.parse(from: Data("event: message\ndata: Line 1\ndata: Line 2\ndata: Line 3\n".utf8), mode: .default))
        #expect(multiLine.data == "Line 1\nLine 2\nLine 3")
        #expect(multiLine.event == "message")
        let dataOnly = try #require(ServerEvent.parse(from: Data("data: {\"content\": \"Swift is awesome\"}\n".utf8), mode: .dataOnly))
        #expect(dataOnly.data == "{\"content\": \"Swift is awesome\"}")
    }

    @Test func readyStateDescriptionComesFromTheSeedExtension() {
        #expect(EventSource.ReadyState.connecting.description == "connecting")
        #expect("\(EventSource.ReadyState.none)" == "none")
        #expect(EventSource.ReadyState.closed.rawValue == 2)
    }

    @Test func customParserFromTheSeedParsesItsFormat() throws {
        var parser = CustomEventParser()
        #expect(parser.parse(Data("upd|7".utf8)).isEmpty)
        let events = parser.parse(Data("|hello|extra\n".utf8))
        let event = try #require(events.first as? CustomEvent)
        #expect(event.event == "upd")
        #expect(event.id == "7")
        #expect(event.data == "hello")
        #expect(event.customField == "extra")
    }
}

// MARK: - What LoopbackTests observe of the seed's types (test code, not the seed's)

extension LiveDataMonitor {
    /// The last event id the monitor's current data task has seen: what its next `connect`
    /// sends as Last-Event-ID.
    var lastEventIdForTests: String? { self.dataTask?.lastMessageId }
}

extension ResilientSSEClient {
    /// The task running the client's connect-and-retry loop (nil after `disconnect()`).
    var connectionTaskForTests: Task<Void, Never>? { self.connectionTask }
}
