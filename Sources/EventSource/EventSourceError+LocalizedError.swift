public import Foundation

extension EventSourceError: LocalizedError {
    /// A sentence saying what failed, with the HTTP status and the size of the error body (not
    /// its bytes, which may hold anything the server sent).
    public var errorDescription: String? {
        switch self {
        case .connectionError(let statusCode, let response):
            "The event stream could not be opened: HTTP \(statusCode) (\(response.count) bytes of response)."
        case .undefinedConnectionError:
            "The event stream connection failed without an HTTP response."
        case .alreadyConsumed:
            "The events of this data task were already consumed; make a new data task."
        }
    }
}

extension EventStreamLimitError: LocalizedError {
    /// The same text as ``description``: which limit the stream exceeded.
    public var errorDescription: String? { self.description }
}
