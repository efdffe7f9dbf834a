import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// ``MessagePackEncoder`` and ``MessagePackDecoder`` against the golden bytes of python
/// `msgpack` and notepack.io (``MessagePackVectors``), every truncation, and the limits.
@Suite struct MessagePackCodecTests {
    private func decode(_ bytes: [UInt8], depth: Int = 128, size: Int = 16 << 20) -> Result<JSONValue, MessagePackDecodingError> {
        Result { () throws(MessagePackDecodingError) in try MessagePackDecoder(maximumDepth: depth, maximumSize: size).decode(bytes) }
    }

    private func encode(_ value: JSONValue) throws -> [UInt8] {
        try MessagePackEncoder.encode(value)
    }

    // MARK: Golden vectors

    @Test(arguments: MessagePackVectors.exact)
    func encodesAsPythonMsgpack(vector: MessagePackVectors.Exact) throws {
        #expect(try self.encode(vector.value).hex == vector.hex)
    }

    @Test(arguments: MessagePackVectors.exact)
    func decodesPythonMsgpack(vector: MessagePackVectors.Exact) throws {
        #expect(try self.decode(vector.bytes).get() == vector.value)
        // The slice entry point agrees, with the value anywhere in a larger buffer.
        let padded = [0xff] + vector.bytes + [0xff]
        #expect(try MessagePackDecoder().decode(padded[1..<padded.count - 1]) == vector.value)
    }

    @Test(arguments: MessagePackVectors.long)
    func longValuesUseTheWidthPythonUses(vector: MessagePackVectors.Long) throws {
        let bytes = try self.encode(vector.value)
        #expect(bytes.count == vector.count)
        #expect(Array(bytes.prefix(vector.header.count / 2)).hex == vector.header)
        #expect(try self.decode(bytes).get() == vector.value)
    }

    @Test(arguments: MessagePackVectors.pythonDecodeOnly + MessagePackVectors.notepack)
    func decodesWhatOtherEncodersWrite(vector: MessagePackVectors.Decoded) throws {
        let value = try self.decode(vector.bytes).get()
        if case .double(let expected) = vector.value, case .double(let actual) = value {
            #expect(actual.bitPattern == expected.bitPattern)  // -0.0 stays -0.0
        } else {
            #expect(value == vector.value)
        }
    }

    // MARK: notepack.io's number rule

    @Test(arguments: [
        (JSONValue.double(1), "01"), (.double(-0.0), "00"), (.double(256), "cd0100"), (.double(-33), "d0df"),
        (.double(9_007_199_254_740_992), "cf0020000000000000"), (.double(-1_099_511_627_776), "d3ffffff0000000000"),
        (.double(9_223_372_036_854_775_808), "cf8000000000000000"),
        (.double(18_446_744_073_709_549_568), "cffffffffffffff800"),
        (.double(18_446_744_073_709_551_616), "cb43f0000000000000"),
        (.double(-9_223_372_036_854_775_808), "d38000000000000000"), (.double(-1e19), "cbc3e158e460913d00"),
        (.double(1.5), "cb3ff8000000000000"), (.double(.infinity), "cb7ff0000000000000"),
        (.double(-.infinity), "cbfff0000000000000"),
    ])
    func integralDoublesEncodeAsIntegersLikeNotepack(value: JSONValue, hex: String) throws {
        #expect(try self.encode(value).hex == hex)
    }

    @Test func notANumberIsFloat64() throws {
        let bytes = try self.encode(.double(.nan))
        #expect(bytes.first == 0xcb && bytes.count == 9)
        guard case .double(let value) = try self.decode(bytes).get() else {
            Issue.record("not a double")
            return
        }
        #expect(value.isNaN)
    }

    @Test func undefinedAtTheTopLevelIsAnError() {
        #expect(self.decode([0xd4, 0x00, 0x00]) == .failure(MessagePackDecodingError(.undefinedValue, at: 0)))
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_577_934_245_678, "2020-01-02T03:04:05.678Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (8_640_000_000_000_000, "+275760-09-13T00:00:00.000Z"), (-8_640_000_000_000_000, "-271821-04-20T00:00:00.000Z"),
    ])
    func datesPrintAsJavaScriptToISOString(milliseconds: Int64, iso: String) {
        // Expected strings: node 20, new Date(ms).toISOString().
        #expect(JavaScriptDate.json(millisecondsSinceEpoch: milliseconds) == .string(iso))
    }

    @Test func datesOutsideTheValidRangeAreNull() {
        #expect(JavaScriptDate.json(millisecondsSinceEpoch: 8_640_000_000_000_001) == .null)
        #expect(JavaScriptDate.json(millisecondsSinceEpoch: .min) == .null)
    }

    // MARK: Every truncation, trailing bytes

    static var wholeValues: [[UInt8]] {
        MessagePackVectors.exact.map(\.bytes) + MessagePackVectors.pythonDecodeOnly.map(\.bytes)
            + MessagePackVectors.notepack.map(\.bytes)
    }

    @Test(arguments: Self.wholeValues)
    func everyTruncationFailsWithATypedError(bytes: [UInt8]) {
        for cut in 0..<bytes.count {
            switch self.decode(Array(bytes[..<cut])) {
            case .success(let value):
                Issue.record("prefix of \(cut) bytes of \(bytes.hex) decoded as \(value)")
            case .failure(let error):
                switch error.kind {
                case .unexpectedEnd, .lengthExceedsInput: break
                default: Issue.record("prefix of \(cut) bytes of \(bytes.hex): \(error)")
                }
            }
        }
    }

    @Test(arguments: Self.wholeValues)
    func trailingBytesAreAnError(bytes: [UInt8]) {
        #expect(self.decode(bytes + [0xc0]) == .failure(MessagePackDecodingError(.trailingData, at: bytes.count)))
    }

    @Test func emptyInputIsAnError() {
        #expect(self.decode([]) == .failure(MessagePackDecodingError(.unexpectedEnd, at: 0)))
    }

    // MARK: Limits, checked before allocating

    @Test(arguments: [
        // str 32, bin 32, ext 32, array 32, map 32 announcing 4 GiB - 1 with nothing after the header.
        ("dbffffffff", UInt64(0xffff_ffff)), ("c6ffffffff", 0xffff_ffff), ("c9ffffffff01", 0xffff_ffff),
        ("ddffffffff", 0xffff_ffff), ("dfffffffff", 0xffff_ffff),
        // More than what remains: a 3-element array over 2 bytes, a 3-member map over 4, a 3-byte str over 2.
        ("930102", 3), ("83a161c0a1", 3), ("a36162", 3),
    ])
    func lengthHeadersBeyondTheInputFailBeforeAllocating(hex: String, declared: UInt64) {
        guard case .failure(let error) = self.decode([UInt8](hex: hex)) else {
            Issue.record("\(hex) decoded")
            return
        }
        #expect(error.kind == .lengthExceedsInput(declared: declared))
        #expect(error.offset == 0)
    }

    @Test func inputOverTheSizeLimitIsRefused() {
        let bytes = [UInt8](hex: "c40400010203")
        #expect(self.decode(bytes, size: 5) == .failure(MessagePackDecodingError(.sizeLimitExceeded(limit: 5), at: 0)))
        #expect(self.decode(bytes, size: 6) == .success(.binary([0, 1, 2, 3])))
    }

    @Test(arguments: [0, 1, 5, 128])
    func nestingDeeperThanTheLimitIsRefused(limit: Int) {
        // limit arrays nest fine; one more fails, for arrays and for maps.
        let arrays = [UInt8](repeating: 0x91, count: limit) + [0xc0]
        #expect((try? self.decode(arrays, depth: limit).get()) != nil)
        let deeper = [UInt8](repeating: 0x91, count: limit + 1) + [0xc0]
        #expect(self.decode(deeper, depth: limit) == .failure(MessagePackDecodingError(.depthLimitExceeded(limit: limit), at: limit)))
        let maps: [UInt8] = [UInt8](repeating: 0x81, count: limit + 1).flatMap { [$0, UInt8(0xa0)] } + [0xc0]
        guard case .failure(let error) = self.decode(maps, depth: limit) else {
            Issue.record("maps nested \(limit + 1) deep decoded")
            return
        }
        #expect(error.kind == .depthLimitExceeded(limit: limit))
    }

    @Test func hostileNestingFailsWithoutExhaustingTheStack() {
        let bytes = [UInt8](repeating: 0x91, count: 1_000_000)
        guard case .failure(let error) = self.decode(bytes) else {
            Issue.record("decoded")
            return
        }
        #expect(error.kind == .depthLimitExceeded(limit: 128))
    }

    // MARK: Malformed input

    @Test(arguments: [
        ("c1", MessagePackDecodingError.Kind.reservedFormat, 0),
        ("81 01 c0", .nonStringKey(format: 0x01), 1),
        ("81 c0 c0", .nonStringKey(format: 0xc0), 1),
        ("81 c4 01 61 c0", .nonStringKey(format: 0xc4), 1),
        ("82 a1 61 01 92 01 02 c0", .nonStringKey(format: 0x92), 4),
        ("a2 c3 28", .invalidUTF8, 1),
        ("a3 ed a0 80", .invalidUTF8, 1),  // a UTF-16 surrogate
        ("92 a1 61 a1 ff", .invalidUTF8, 4),
        ("81 a2 c0 af c0", .invalidUTF8, 2),  // in a key
        ("d9 02 c0 80", .invalidUTF8, 2),  // overlong
    ])
    func malformedInputFailsWithTheKindAndOffset(hex: String, kind: MessagePackDecodingError.Kind, offset: Int) {
        let bytes = [UInt8](hex: hex.replacingOccurrences(of: " ", with: ""))
        #expect(self.decode(bytes) == .failure(MessagePackDecodingError(kind, at: offset)))
    }

    @Test func duplicateKeysAreKeptInOrderLikeTheJSONParser() throws {
        let value = try self.decode([UInt8](hex: "82a16101a16102")).get()
        #expect(value == .object(JSONObject([("a", 1), ("a", 2)])))
    }

    // MARK: Round trips

    @Test func everyTypeRoundTrips() throws {
        let value: JSONValue = [
            nil, true, false, 0, 1, -1, 127, 128, -32, -33, 255, 256, -128, -129, 65535, 65536, -32768, -32769,
            .int(1 << 32 - 1), .int(1 << 32), .int(-(1 << 31)), .int(-(1 << 31) - 1), .int(.max), .int(.min),
            0.5, -1e-300, 1e300, "", "é", .string(String(repeating: "x", count: 70_000)),
            .binary([]), .binary(Array(repeating: 7, count: 300)), [], [[[]]],
            .object([:]), ["z": 1, "a": ["nested": [.binary([1, 2])]], "": nil],
        ]
        #expect(try self.decode(self.encode(value)).get() == value)
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        self.split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Inputs found by the libFuzzer target `socketio-msgpack` (scripts/fuzz.sh), minimized; the
/// raw inputs are kept in `Fuzz/Corpus/socketio-msgpack/regression-*`.
@Suite struct MessagePackFuzzFindingTests {
    /// An extension notepack.io reads as `[type, data]` is an array, so it counts against the
    /// depth limit (the fuzzer found `[[fixext 1]]` three deep under a limit of 3).
    @Test func unknownExtensionsCountAsANestingLevel() throws {
        let bytes = [UInt8](hex: "9191d42000")  // [[fixext 1, type 32]]
        #expect(try MessagePackDecoder(maximumDepth: 3).decode(bytes) == [[[32, .binary([0])]]])
        #expect(throws: MessagePackDecodingError(.depthLimitExceeded(limit: 2), at: 2)) {
            try MessagePackDecoder(maximumDepth: 2).decode(bytes)
        }
        let ext8 = [UInt8](hex: "91c7010561")  // [ext 8, type 5, "a"]
        #expect(throws: MessagePackDecodingError(.depthLimitExceeded(limit: 1), at: 1)) {
            try MessagePackDecoder(maximumDepth: 1).decode(ext8)
        }
    }
}
