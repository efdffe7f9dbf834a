public import Foundation

extension EVEvent {
    /// Decodes the event's data as JSON, with the caller's decoder (its date, key and data
    /// strategies apply).
    ///
    /// For APIs that send one JSON value per event, such as an LLM's streamed chunks:
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let chunk = try event.decodeData(as: ChatChunk.self, using: decoder)
    /// ```
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder to use; a default `JSONDecoder` when not given.
    /// - Returns: the decoded value.
    /// - Throws: the decoder's `DecodingError` when the data is not that JSON (an event without
    ///   data is decoded from no bytes, which fails as invalid JSON).
    public func decodeData<Value: Decodable>(
        as type: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder()
    ) throws -> Value {
        try decoder.decode(Value.self, from: Data((self.data ?? "").utf8))
    }
}
