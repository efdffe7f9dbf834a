/// Incremental decoder of an HTTP long-polling body (engine.io-protocol v4, "Packet encoding" /
/// "HTTP long-polling").
///
/// Feed the body's chunks as they arrive; each call returns the packets completed by a record
/// separator `0x1E`; ``finish()`` returns the last record at the end of the body. Only the
/// current, unfinished record is buffered, and the whole body is bounded by
/// ``maximumLength``: the decoder throws ``EngineProtocolError/payloadTooLarge(limit:)``
/// as soon as the body would exceed it, before buffering more.
///
/// An empty body decodes to no packets; an empty record between separators is an error.
///
/// ```swift
/// var decoder = PollingPayloadDecoder()
/// var packets = try decoder.feed(chunk1)
/// packets += try decoder.feed(chunk2)
/// packets += try decoder.finish()
/// ```
///
/// What a record becomes is the `Record` type's (``PollingRecord``): an ``EnginePacket``
/// (``PollingPayloadDecoder``), or for the client machine an ``EngineInboundPacket``, whose text
/// message keeps the record's own text.
package typealias PollingPayloadDecoder = PollingRecordReader<EnginePacket>

/// What one record of a polling body decodes to (``PollingRecordReader``).
package protocol PollingRecord: Sendable {
    /// Decodes one record: a text packet `<type digit>[<data>]`, or `b<base64>`.
    init(pollingRecord bytes: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError)
}

extension EnginePacket: PollingRecord {}

/// ``PollingPayloadDecoder``, for any ``PollingRecord``: splits a body at its separators and
/// decodes each record.
package struct PollingRecordReader<Record: PollingRecord>: Sendable {
    /// The default body limit: 16 MiB.
    package static var defaultMaximumLength: Int { 16 * 1024 * 1024 }

    /// The largest body accepted, in bytes.
    package let maximumLength: Int
    private var record: [UInt8] = []
    private var consumed = 0
    private var sawSeparator = false

    /// A decoder for one body.
    package init(maximumLength: Int = Self.defaultMaximumLength) {
        self.maximumLength = maximumLength
    }

    /// Consumes the next chunk of the body.
    ///
    /// - Returns: the packets whose records ended in this chunk, in order.
    /// - Throws: ``EngineProtocolError`` for a malformed record or an oversized body; the
    ///   decoder must not be used after an error.
    package mutating func feed(_ chunk: some Collection<UInt8>) throws(EngineProtocolError) -> [Record] {
        try self.feed(chunk, last: false).packets
    }

    /// ``feed(_:)``; with `last`, a final record that lies whole in `chunk` is decoded in place
    /// (`decodedLast`), the body then ended.
    private mutating func feed(
        _ chunk: some Collection<UInt8>, last: Bool
    ) throws(EngineProtocolError) -> (packets: [Record], decodedLast: Bool) {
        let chunkCount = chunk.count
        guard chunkCount <= self.maximumLength - self.consumed else {
            throw .payloadTooLarge(limit: self.maximumLength)
        }
        self.consumed += chunkCount
        var packets: [Record] = []
        // The closure-taking buffer APIs do not carry typed errors: pass them as a Result.
        func consumeAll(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Bool, EngineProtocolError> {
            do throws(EngineProtocolError) {
                return .success(try self.consume(buffer, into: &packets, last: last))
            } catch {
                return .failure(error)
            }
        }
        let result = chunk.withContiguousStorageIfAvailable(consumeAll) ?? Array(chunk).withUnsafeBufferPointer(consumeAll)
        return (packets, try result.get())
    }

    /// Consumes the body's last chunk and ends the body: ``feed(_:)`` then ``finish()``, except
    /// that a last record lying whole in `chunk` is decoded from it in place instead of being
    /// buffered first (so a body read at once is decoded without a copy).
    ///
    /// - Returns: the packets whose records ended in this chunk, and the last one.
    /// - Throws: as ``feed(_:)`` and ``finish()``.
    package mutating func finish(with chunk: some Collection<UInt8>) throws(EngineProtocolError) -> [Record] {
        var (packets, decodedLast) = try self.feed(chunk, last: true)
        if !decodedLast { packets += try self.finish() }
        return packets
    }

    /// Ends the body.
    ///
    /// - Returns: the last packet, if the body did not end empty.
    /// - Throws: ``EngineProtocolError`` for a malformed last record, or an empty one after a separator.
    package mutating func finish() throws(EngineProtocolError) -> [Record] {
        defer { self.record.removeAll(keepingCapacity: false) }
        if self.record.isEmpty {
            if self.sawSeparator { throw .emptyPacket }
            return []
        }
        let packet = try Self.decodeRecord(self.record[...])
        return [packet]
    }

    /// Decodes the records that end in `buffer` and buffers the rest; with `last`, a rest that
    /// is a whole record (nothing buffered before it) is decoded in place instead.
    ///
    /// - Returns: whether the last record was decoded here (the body is then over).
    private mutating func consume(
        _ buffer: UnsafeBufferPointer<UInt8>, into packets: inout [Record], last: Bool
    ) throws(EngineProtocolError) -> Bool {
        var start = 0
        while let separatorOffset = buffer[start...].firstIndex(of: EnginePollingPayload.separator) {
            self.sawSeparator = true
            if self.record.isEmpty {
                packets.append(try Self.decode(UnsafeBufferPointer(rebasing: buffer[start..<separatorOffset])))
            } else {
                self.record.append(contentsOf: buffer[start..<separatorOffset])
                packets.append(try Self.decodeRecord(self.record[...]))
                self.record.removeAll(keepingCapacity: true)
            }
            start = separatorOffset + 1
        }
        guard start < buffer.count else { return false }
        if last && self.record.isEmpty {
            packets.append(try Self.decode(UnsafeBufferPointer(rebasing: buffer[start...])))
            return true
        }
        self.record.append(contentsOf: buffer[start...])
        return false
    }

    private static func decodeRecord(_ record: ArraySlice<UInt8>) throws(EngineProtocolError) -> Record {
        let result = record.withUnsafeBufferPointer { buffer -> Result<Record, EngineProtocolError> in
            do throws(EngineProtocolError) {
                return .success(try Self.decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func decode(_ record: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) -> Record {
        try Record(pollingRecord: record)
    }
}
