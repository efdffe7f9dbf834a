import EventSource
import Foundation

// The ```swift blocks of Sources/EventSource/EventSource.docc/StreamingFromAnLLMAPI.md, compiled
// here (scripts/docs.sh checks they appear verbatim) and run against a local OpenAI-style
// server in LLMStreamingExampleTests.swift.

// MARK: - The chunks

struct ChatRequest: Encodable {
    struct Message: Encodable {
        var role: String
        var content: String
    }
    var model: String
    var messages: [Message]
    var stream = true
}

struct ChatCompletionChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable {
            var content: String?
        }
        var delta: Delta
        var finishReason: String?
    }
    var choices: [Choice]
}

struct APIError: Error {
    var statusCode: Int
    var message: String
    var retryAfter: String?
}

// MARK: - The request and its stream

func streamCompletion(prompt: String, baseURL: URL, apiKey: String) async throws -> String {
    var request = URLRequest(url: baseURL.appendingPathComponent("v1/chat/completions"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
    request.httpBody = try JSONEncoder().encode(
        ChatRequest(model: "gpt-4o-mini", messages: [.init(role: "user", content: prompt)]))

    var eventSource = EventSource(timeoutInterval: 60)
    eventSource.terminator = .data("[DONE]")
    let dataTask = eventSource.dataTask(for: request)

    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    var text = ""
    for await event in dataTask.events() {
        switch event {
        case .open:
            let requestId = dataTask.response?.value(forHTTPHeaderField: "x-request-id")
            print("streaming, request", requestId ?? "-")
        case .event(let event):
            let chunk = try event.decodeData(as: ChatCompletionChunk.self, using: decoder)
            text += chunk.choices.first?.delta.content ?? ""
        case .error(EventSourceError.connectionError(let statusCode, let body)):
            throw APIError(
                statusCode: statusCode, message: String(decoding: body, as: UTF8.self),
                retryAfter: dataTask.response?.value(forHTTPHeaderField: "retry-after"))
        case .error(let error):
            throw error
        case .closed:
            break
        }
    }
    return text
}

func llmTerminatorOnTheEventType() -> EventSource {
    var eventSource = EventSource()
    eventSource.terminator = .eventType("message_stop")
    return eventSource
}

// MARK: - No reconnection of a completion

func llmSubscriptionThatResendsItsPost() -> EventSource {
    let subscription = EventSource(reconnectionPolicy: .exponentialBackoff(reconnectsNonIdempotentRequests: true))
    return subscription
}

// MARK: - Any byte source

func completionText<Body: AsyncSequence>(from body: Body) async throws -> String where Body.Element == UInt8 {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    var text = ""
    for try await event in body.serverSentEvents(terminator: .data("[DONE]")) {
        let chunk = try event.decodeData(as: ChatCompletionChunk.self, using: decoder)
        text += chunk.choices.first?.delta.content ?? ""
    }
    return text
}

#if canImport(Darwin)
@available(macOS 12, iOS 15, tvOS 15, watchOS 8, *)
func completionWithURLSession(_ request: URLRequest) async throws -> String {
    let (bytes, _) = try await URLSession.shared.bytes(for: request)
    return try await completionText(from: bytes)
}
#endif
