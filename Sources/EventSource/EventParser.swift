public import Foundation

/// Turns the bytes of an event stream into events, for servers whose format differs from
/// the standard one.
///
/// ``EventSource`` gives each connection of a ``EventSource/DataTask`` a fresh copy of the
/// parser it was created with and calls ``parse(_:)`` with every chunk of the response
/// body, in order, chunks split anywhere. The parser keeps whatever it needs between calls.
///
/// ```swift
/// struct LineParser: EventParser {
///     private var buffer = Data()
///     mutating func parse(_ data: Data) -> [EVEvent] { ... }
/// }
/// let eventSource = EventSource(eventParser: LineParser())
/// ```
public protocol EventParser: Sendable {
    /// Consumes the next chunk of the body and returns the events it completed.
    mutating func parse(_ data: Data) -> [EVEvent]
}
