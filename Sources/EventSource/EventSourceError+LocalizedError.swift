public import Foundation

extension EventSourceError: LocalizedError {
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
    public var errorDescription: String? { self.description }
}
