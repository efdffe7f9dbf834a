public import Foundation

/// Errors of an ``EventSource`` connection, exactly the three cases of the API contract.
public enum EventSourceError: Error, Sendable {
    /// The server answered with a status other than 200/204, or a non-event-stream body;
    /// `response` holds the body bytes read so far.
    case connectionError(statusCode: Int, response: Data)
    /// The connection failed without an HTTP status.
    case undefinedConnectionError
    /// `events()` was called a second time on the same data task.
    case alreadyConsumed
}
