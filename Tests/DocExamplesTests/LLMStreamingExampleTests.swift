import EventSource
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The "Streaming from an LLM API" article's examples, run against a local server that streams
/// chat completion chunks as OpenAI's API does (`Tests/Servers/sse_llm_server.py`).
@Suite(.serialized, TestTimeLimit.minutes(2)) struct LLMStreamingExampleTests {
    @Test func streamCompletionReadsTheAnswerAndStopsAtDone() async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        let baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
        // The server keeps the response open after [DONE]: only the terminator ends the loop.
        let text = try await streamCompletion(
            prompt: "Why is the sky blue?", baseURL: baseURL.appendingPathComponent("hold"), apiKey: "sk-test")
        #expect(text == "Why is the sky blue?")
        _ = try await server.waitForLine { $0 == "DISCONNECTED 1" }
    }

    @Test func streamCompletionThrowsTheAPIError() async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        let baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
        await #expect {
            _ = try await streamCompletion(prompt: "hi", baseURL: baseURL.appendingPathComponent("ratelimited"), apiKey: "sk-test")
        } throws: { error in
            guard let error = error as? APIError else { return false }
            return error.statusCode == 429 && error.retryAfter == "1" && error.message.contains("Rate limit reached")
        }
    }

    @Test func completionTextReadsAnyByteSource() async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/chat/completions")!)
        request.httpMethod = "POST"
        request.setValue("Bearer sk-test", forHTTPHeaderField: "Authorization")
        request.httpBody = try JSONEncoder().encode(
            ChatRequest(model: "m", messages: [.init(role: "user", content: "bytes from anywhere")]))
        let (body, _) = try await URLSession.shared.data(for: request)
        let (bytes, continuation) = AsyncStream.makeStream(of: UInt8.self)
        for byte in body { continuation.yield(byte) }
        continuation.finish()
        #expect(try await completionText(from: bytes) == "bytes from anywhere")
    }

    @Test func theOtherSnippetsConfigureWhatTheySay() {
        #expect(llmTerminatorOnTheEventType().terminator == .eventType("message_stop"))
        #expect(llmSubscriptionThatResendsItsPost().reconnectionPolicy.reconnectsNonIdempotentRequests)
    }
}
