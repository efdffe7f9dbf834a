/// The field names the WHATWG event-stream format gives meaning to; others are ignored.
package enum SSEField: String, Sendable, Hashable {
    case event
    case data
    case id
    case retry
}
