import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeSync

@testable import EventSource

/// An in-memory ``HTTPTransport`` for the data task's unit tests: answers each request with
/// the next scripted response and records what was sent. (Loopback tests use real servers.)
final class ScriptedHTTPTransport: HTTPTransport {
    enum Ending: Sendable {
        case endOfBody
        case failure(HTTPClientError)
        /// The body never ends: the read waits until it is cancelled.
        case hang
    }

    struct Reply: Sendable {
        var status = 200
        var headers: HTTPHeaders = ["Content-Type": "text/event-stream"]
        var chunks: [String] = []
        /// Raw chunks (e.g. ill-formed UTF-8), sent instead of `chunks` when set.
        var byteChunks: [[UInt8]]?
        var ending: Ending = .endOfBody
    }

    private let state: LockedValue<(replies: [Result<Reply, HTTPClientError>], requests: [HTTPClientRequest], bodies: [ScriptedBody])>

    init(_ replies: [Result<Reply, HTTPClientError>]) {
        self.state = LockedValue((replies, [], []))
    }

    var requests: [HTTPClientRequest] { self.state.withLock { $0.requests } }
    var bodies: [ScriptedBody] { self.state.withLock { $0.bodies } }

    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let reply = self.state.withLock { state -> Result<Reply, HTTPClientError> in
            state.requests.append(request)
            guard !state.replies.isEmpty else {
                return .failure(HTTPClientError(.network(.connectionRefused), "no more scripted replies"))
            }
            return state.replies.removeFirst()
        }
        let script = try reply.get()
        let body = ScriptedBody(chunks: script.byteChunks ?? script.chunks.map { Array($0.utf8) }, ending: script.ending)
        self.state.withLock { $0.bodies.append(body) }
        return HTTPClientResponse(
            status: script.status, reason: "", headers: script.headers, url: request.url,
            body: HTTPResponseBody(source: body))
    }
}

/// A scripted response body; records whether it was cancelled.
final class ScriptedBody: HTTPBodySource {
    private struct State {
        var chunks: [[UInt8]]
        var ending: ScriptedHTTPTransport.Ending
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state: LockedValue<State>

    init(chunks: [[UInt8]], ending: ScriptedHTTPTransport.Ending) {
        self.state = LockedValue(State(chunks: chunks, ending: ending))
    }

    var isCancelled: Bool { self.state.withLock { $0.cancelled } }

    func next() async throws(HTTPClientError) -> [UInt8]? {
        enum Step {
            case chunk([UInt8])
            case end
            case fail(HTTPClientError)
            case hang, cancelled
        }
        let step = self.state.withLock { state -> Step in
            if state.cancelled { return .cancelled }
            if !state.chunks.isEmpty { return .chunk(state.chunks.removeFirst()) }
            switch state.ending {
            case .endOfBody: return .end
            case .failure(let error): return .fail(error)
            case .hang: return .hang
            }
        }
        switch step {
        case .chunk(let bytes): return bytes
        case .end: return nil
        case .fail(let error): throw error
        case .cancelled: throw HTTPClientError(.cancelled, "cancelled")
        case .hang:
            await withCheckedContinuation { continuation in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.cancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            throw HTTPClientError(.cancelled, "cancelled")
        }
    }

    func cancel() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

extension EventSource.EventType {
    /// A short, comparable form for assertions.
    var summary: String {
        switch self {
        case .open: "open"
        case .closed: "closed"
        case .event(let event): "event(\(event.event ?? "-"),\(event.id ?? "-"),\(event.data ?? "nil"))"
        case .error(let error):
            if let error = error as? EventSourceError {
                switch error {
                case .connectionError(let status, let body): "error(\(status),\(String(decoding: body, as: UTF8.self)))"
                case .undefinedConnectionError: "error(undefined)"
                case .alreadyConsumed: "error(alreadyConsumed)"
                }
            } else if let error = error as? URLError {
                "error(url \(error.code.rawValue))"
            } else {
                "error(\(type(of: error)))"
            }
        }
    }
}

/// Collects a whole sequence's summaries (bounded, so a bug cannot hang a test).
func summaries(of task: EventSource.DataTask, limit: Int = 100) async -> [String] {
    var result: [String] = []
    for await event in task.events() {
        result.append(event.summary)
        if result.count >= limit { break }
    }
    return result
}
