package import EngineIOProtocol
import RealtimeEncoding

/// Decodes one MessagePack value into a ``JSONValue``, the way notepack.io (the encoder of
/// socket.io-msgpack-parser) reads it.
///
/// MessagePack specification, "Formats" (github.com/msgpack/msgpack/blob/master/spec.md):
///
/// | format | ``JSONValue`` |
/// |---|---|
/// | nil, false / true | ``JSONValue/null``, ``JSONValue/bool(_:)`` |
/// | positive / negative fixint, uint 8-64, int 8-64 | ``JSONValue/int(_:)``; a uint 64 above `Int.max` becomes ``JSONValue/double(_:)``, as a JSON number that does not fit `Int` does |
/// | float 32, float 64 | ``JSONValue/double(_:)`` (also when integral) |
/// | fixstr, str 8/16/32 | ``JSONValue/string(_:)``; the bytes must be well-formed UTF-8 |
/// | bin 8/16/32 | ``JSONValue/binary(_:)`` |
/// | fixarray, array 16/32 | ``JSONValue/array(_:)`` |
/// | fixmap, map 16/32 | ``JSONValue/object(_:)`` in wire order, duplicates kept (as ``JSONParser`` does); keys must be str |
///
/// Extension types follow notepack.io's `decode.js`, the reference peer, because its encoder
/// writes JavaScript values as extensions that a Socket.IO server really sends:
///
/// - fixext 1 of type 0 is JavaScript's `undefined` (the reference server's CONNECT reply is
///   `{sid, pid: undefined}` when connection state recovery is off). It is read the way
///   `JSON.stringify` writes `undefined`: a map member holding it is left out, an array
///   element becomes ``JSONValue/null``. At the top level it is an error
///   (``MessagePackDecodingError/Kind/undefinedValue``).
/// - fixext 8 of type 0 is a JavaScript `Date` (milliseconds since the epoch, big-endian
///   int 64). It becomes the ISO 8601 string `Date.prototype.toJSON` gives
///   (`2020-01-02T03:04:05.678Z`), so a handler sees what the default JSON parser would
///   deliver; a time outside JavaScript's Date range becomes ``JSONValue/null``, as
///   `JSON.stringify` writes an invalid Date.
/// - ext 8/16/32 of type 0 is an `ArrayBuffer` or typed array: ``JSONValue/binary(_:)``.
/// - Every other extension (fixext 1/2/4/8/16, ext 8/16/32 of any other type, the spec's
///   timestamp `-1` included) becomes the two-element array `[type, binary]`, as notepack.io
///   returns it.
///
/// Limits are checked before anything is allocated: the input size against ``maximumSize``,
/// each str/bin/ext length and each array/map count against the bytes that remain (an element
/// takes at least one byte, a map member two), nesting against ``maximumDepth``. Every
/// malformed input throws a ``MessagePackDecodingError``; the decoder never traps.
///
/// The decoder reads one complete value: Engine.IO delivers each binary message whole and
/// bounded by its payload limit, so a resumable decoder would only add state. A truncated
/// message fails with ``MessagePackDecodingError/Kind/unexpectedEnd``.
///
/// ```swift
/// let value = try MessagePackDecoder().decode([0x92, 0xa2, 0x68, 0x69, 0x01])  // ["hi", 1]
/// ```
package struct MessagePackDecoder: Sendable {
    /// The deepest allowed nesting of arrays and maps (a top-level array is depth 1).
    package var maximumDepth: Int
    /// The largest input accepted, in bytes.
    package var maximumSize: Int

    /// A decoder with the given limits: depth 128 (as ``JSONParser``) and 16 MiB (the default
    /// WebSocket message limit).
    package init(maximumDepth: Int = 128, maximumSize: Int = 16 << 20) {
        self.maximumDepth = maximumDepth
        self.maximumSize = maximumSize
    }

    /// Decodes the one value that `bytes` holds.
    ///
    /// - Throws: ``MessagePackDecodingError`` describing the first problem found.
    package func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(MessagePackDecodingError) -> JSONValue {
        guard bytes.count <= self.maximumSize else {
            throw MessagePackDecodingError(.sizeLimitExceeded(limit: self.maximumSize), at: 0)
        }
        var reader = MessagePackReader(bytes: bytes, maximumDepth: self.maximumDepth)
        guard let value = try reader.readValue(depth: 0) else {
            throw MessagePackDecodingError(.undefinedValue, at: 0)
        }
        guard reader.index == bytes.count else {
            throw MessagePackDecodingError(.trailingData, at: reader.index)
        }
        return value
    }

    /// Decodes the one value that `bytes` holds.
    ///
    /// - Throws: ``MessagePackDecodingError`` describing the first problem found.
    package func decode(_ bytes: [UInt8]) throws(MessagePackDecodingError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONValue, MessagePackDecodingError> in
            do throws(MessagePackDecodingError) {
                return .success(try self.decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Decodes the one value that `bytes` holds; offsets in errors are relative to the slice.
    ///
    /// - Throws: ``MessagePackDecodingError`` describing the first problem found.
    package func decode(_ bytes: ArraySlice<UInt8>) throws(MessagePackDecodingError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONValue, MessagePackDecodingError> in
            do throws(MessagePackDecodingError) {
                return .success(try self.decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Reader

/// The cursor of one decode; lives on the stack for the duration of ``MessagePackDecoder/decode(_:)``.
private struct MessagePackReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var remaining: Int { self.bytes.count - self.index }

    /// Reads one value; `nil` is notepack.io's `undefined` (fixext 1, type 0).
    mutating func readValue(depth: Int) throws(MessagePackDecodingError) -> JSONValue? {
        let start = self.index
        let format = try self.readByte()
        switch format {
        case 0x00...0x7f:
            return .int(Int(format))
        case 0x80...0x8f:
            return try self.readMap(count: UInt64(format & 0x0f), depth: depth + 1, at: start)
        case 0x90...0x9f:
            return try self.readArray(count: UInt64(format & 0x0f), depth: depth + 1, at: start)
        case 0xa0...0xbf:
            return .string(try self.readString(length: UInt64(format & 0x1f), at: start))
        case 0xc0:
            return .null
        case 0xc1:
            throw MessagePackDecodingError(.reservedFormat, at: start)
        case 0xc2:
            return .bool(false)
        case 0xc3:
            return .bool(true)
        case 0xc4, 0xc5, 0xc6:
            let length = try self.readLength(byteCount: 1 << Int(format - 0xc4))
            return .binary(try self.readBytes(length: length, at: start))
        case 0xc7, 0xc8, 0xc9:
            let length = try self.readLength(byteCount: 1 << Int(format - 0xc7))
            let type = Int8(bitPattern: try self.readByte())
            let body = try self.readBytes(length: length, at: start)
            return type == 0 ? .binary(body) : try self.extensionPair(type: type, body: body, depth: depth + 1, at: start)
        case 0xca:
            return .double(Double(Float(bitPattern: UInt32(try self.readUInt(byteCount: 4)))))
        case 0xcb:
            return .double(Double(bitPattern: try self.readUInt(byteCount: 8)))
        case 0xcc, 0xcd, 0xce, 0xcf:
            let value = try self.readUInt(byteCount: 1 << Int(format - 0xcc))
            return value <= UInt64(Int.max) ? .int(Int(value)) : .double(Double(value))
        case 0xd0, 0xd1, 0xd2, 0xd3:
            let byteCount = 1 << Int(format - 0xd0)
            let raw = try self.readUInt(byteCount: byteCount)
            // Sign-extend from the format's width.
            let shift = UInt64(64 - 8 * byteCount)
            return .int(Int(truncatingIfNeeded: Int64(bitPattern: raw << shift) >> shift))
        case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
            let length = 1 << Int(format - 0xd4)
            let type = Int8(bitPattern: try self.readByte())
            guard self.remaining >= length else {
                throw MessagePackDecodingError(.unexpectedEnd, at: self.bytes.count)
            }
            if type == 0, format == 0xd4 {
                self.index += 1
                return nil
            }
            if type == 0, format == 0xd7 {
                let milliseconds = Int64(bitPattern: try self.readUInt(byteCount: 8))
                return JavaScriptDate.json(millisecondsSinceEpoch: milliseconds)
            }
            let body = try self.readBytes(length: UInt64(length), at: start)
            return try self.extensionPair(type: type, body: body, depth: depth + 1, at: start)
        case 0xd9, 0xda, 0xdb:
            let length = try self.readLength(byteCount: 1 << Int(format - 0xd9))
            return .string(try self.readString(length: length, at: start))
        case 0xdc, 0xdd:
            let count = try self.readLength(byteCount: format == 0xdc ? 2 : 4)
            return try self.readArray(count: count, depth: depth + 1, at: start)
        case 0xde, 0xdf:
            let count = try self.readLength(byteCount: format == 0xde ? 2 : 4)
            return try self.readMap(count: count, depth: depth + 1, at: start)
        default:  // 0xe0...0xff negative fixint
            return .int(Int(Int8(bitPattern: format)))
        }
    }

    // MARK: Containers

    /// notepack.io's `[type, data]` for an extension it has no JavaScript type for: an array,
    /// so it counts against the depth limit like one.
    func extensionPair(type: Int8, body: [UInt8], depth: Int, at start: Int) throws(MessagePackDecodingError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw MessagePackDecodingError(.depthLimitExceeded(limit: self.maximumDepth), at: start)
        }
        return .array([.int(Int(type)), .binary(body)])
    }

    mutating func readArray(count: UInt64, depth: Int, at start: Int) throws(MessagePackDecodingError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw MessagePackDecodingError(.depthLimitExceeded(limit: self.maximumDepth), at: start)
        }
        // Each element takes at least one byte: refuse a count the input cannot hold before
        // reserving room for it.
        guard count <= UInt64(self.remaining) else {
            throw MessagePackDecodingError(.lengthExceedsInput(declared: count), at: start)
        }
        var elements: [JSONValue] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
            elements.append(try self.readValue(depth: depth) ?? .null)
        }
        return .array(elements)
    }

    mutating func readMap(count: UInt64, depth: Int, at start: Int) throws(MessagePackDecodingError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw MessagePackDecodingError(.depthLimitExceeded(limit: self.maximumDepth), at: start)
        }
        // Each member takes at least two bytes (a fixstr key and a one-byte value).
        guard count <= UInt64(self.remaining / 2) else {
            throw MessagePackDecodingError(.lengthExceedsInput(declared: count), at: start)
        }
        var object = JSONObject()
        object.reserveCapacity(Int(count))
        for _ in 0..<count {
            let key = try self.readKey()
            if let value = try self.readValue(depth: depth) {
                object.append(key: key, value: value)
            }
        }
        return .object(object)
    }

    mutating func readKey() throws(MessagePackDecodingError) -> String {
        let start = self.index
        let format = try self.readByte()
        let length: UInt64
        switch format {
        case 0xa0...0xbf: length = UInt64(format & 0x1f)
        case 0xd9, 0xda, 0xdb: length = try self.readLength(byteCount: 1 << Int(format - 0xd9))
        default: throw MessagePackDecodingError(.nonStringKey(format: format), at: start)
        }
        return try self.readString(length: length, at: start)
    }

    // MARK: Scalars

    mutating func readByte() throws(MessagePackDecodingError) -> UInt8 {
        guard self.index < self.bytes.count else {
            throw MessagePackDecodingError(.unexpectedEnd, at: self.index)
        }
        defer { self.index += 1 }
        return self.bytes[self.index]
    }

    /// A big-endian unsigned integer of `byteCount` (1-8) bytes.
    mutating func readUInt(byteCount: Int) throws(MessagePackDecodingError) -> UInt64 {
        guard self.remaining >= byteCount else {
            throw MessagePackDecodingError(.unexpectedEnd, at: self.bytes.count)
        }
        var value: UInt64 = 0
        for offset in 0..<byteCount {
            value = value << 8 | UInt64(self.bytes[self.index + offset])
        }
        self.index += byteCount
        return value
    }

    /// A length or count field of `byteCount` bytes.
    mutating func readLength(byteCount: Int) throws(MessagePackDecodingError) -> UInt64 {
        try self.readUInt(byteCount: byteCount)
    }

    /// `length` bytes, refused before allocating when the input does not hold them.
    mutating func readBytes(length: UInt64, at start: Int) throws(MessagePackDecodingError) -> [UInt8] {
        guard length <= UInt64(self.remaining) else {
            throw MessagePackDecodingError(.lengthExceedsInput(declared: length), at: start)
        }
        let end = self.index + Int(length)
        defer { self.index = end }
        return Array(UnsafeBufferPointer(rebasing: self.bytes[self.index..<end]))
    }

    mutating func readString(length: UInt64, at start: Int) throws(MessagePackDecodingError) -> String {
        guard length <= UInt64(self.remaining) else {
            throw MessagePackDecodingError(.lengthExceedsInput(declared: length), at: start)
        }
        let end = self.index + Int(length)
        let slice = UnsafeBufferPointer(rebasing: self.bytes[self.index..<end])
        if let invalid = UTF8Validator.firstInvalidOffset(in: slice) {
            throw MessagePackDecodingError(.invalidUTF8, at: self.index + invalid)
        }
        self.index = end
        return String(decoding: slice, as: UTF8.self)
    }
}
