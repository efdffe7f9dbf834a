import RealtimeEncoding
import TestSupport
import Testing

/// The codecs' one input byte buffer: appends at the end, reads from the front, compaction
/// with amortized O(1) per consumed byte, and no copy where an array can be handed through.
@Suite struct InputByteBufferTests {
    /// A stream of LF-terminated lines of every length from 0 to 40, and a last line without LF.
    static let stream: [UInt8] = {
        var bytes: [UInt8] = []
        for length in 0...40 {
            bytes += (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            bytes.append(0x0A)
        }
        return bytes + Array("no line end".utf8)
    }()

    /// Cuts the buffer's input into lines as a line-based decoder does: search from where the
    /// last search stopped, take each whole line.
    struct LineReader {
        var buffer = InputByteBuffer()
        var searched = 0
        var lines: [[UInt8]] = []

        mutating func feed(_ bytes: [UInt8]) {
            self.buffer.append(bytes)
            while let lineFeed = self.buffer.firstIndex(of: 0x0A, from: self.searched) {
                self.lines.append(Array(self.buffer.take(lineFeed + 1).dropLast()))
                self.searched = 0
            }
            self.searched = self.buffer.count
        }
    }

    static func expectedLines() -> [[UInt8]] {
        Self.stream.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    // MARK: Fed whole, byte by byte, split at every offset

    @Test func linesFedWhole() {
        var reader = LineReader()
        reader.feed(Self.stream)
        #expect(reader.lines == Self.expectedLines())
        #expect(reader.buffer.takeAll() == Array("no line end".utf8))
        #expect(reader.buffer.isEmpty)
    }

    @Test func linesFedByteByByte() {
        var reader = LineReader()
        for byte in Self.stream { reader.feed([byte]) }
        #expect(reader.lines == Self.expectedLines())
        #expect(reader.buffer.takeAll() == Array("no line end".utf8))
    }

    @Test func linesSplitAtEveryOffset() {
        for offset in 0...Self.stream.count {
            var reader = LineReader()
            reader.feed(Array(Self.stream[..<offset]))
            reader.feed(Array(Self.stream[offset...]))
            #expect(reader.lines == Self.expectedLines(), "split at \(offset)")
            #expect(reader.buffer.takeAll() == Array("no line end".utf8), "split at \(offset)")
        }
    }

    // MARK: Reading and consuming

    @Test func peeksWithoutConsuming() {
        var buffer = InputByteBuffer()
        buffer.append([1, 2, 3])
        buffer.append([4, 5] as ArraySlice<UInt8>)
        ([6, 7] as [UInt8]).withUnsafeBytes { buffer.append($0) }
        #expect(buffer.count == 7)
        #expect(buffer[0] == 1 && buffer[6] == 7)
        #expect(buffer.slice(from: 2, length: 3) == [3, 4, 5])
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == [1, 2, 3, 4, 5, 6, 7])
        buffer.consume(2)
        #expect(buffer[0] == 3)
        #expect(buffer.count == 5)
        #expect(buffer.slice(from: 0, length: 2) == [3, 4])
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == [3, 4, 5, 6, 7])
    }

    @Test func findsAByteFromAnOffset() {
        var buffer = InputByteBuffer()
        #expect(buffer.firstIndex(of: 0) == nil)
        buffer.append([9, 0, 9, 0, 9])
        buffer.consume(1)
        #expect(buffer.firstIndex(of: 0) == 0)
        #expect(buffer.firstIndex(of: 0, from: 1) == 2)
        #expect(buffer.firstIndex(of: 0, from: 3) == nil)
        #expect(buffer.firstIndex(of: 9, from: 3) == 3)
        #expect(buffer.firstIndex(of: 7) == nil)
        #expect(buffer.firstIndex(of: 9, from: 4) == nil)
        #expect(buffer.firstIndex(of: 9, from: 10) == nil)
    }

    @Test func emptyAppendsChangeNothing() {
        var buffer = InputByteBuffer()
        buffer.append([])
        buffer.append([] as ArraySlice<UInt8>)
        buffer.append(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(buffer.isEmpty && buffer.count == 0 && buffer.heldByteCount == 0)
        #expect(buffer.takeAll() == [])
    }

    @Test func removeAllDropsEverything() {
        var buffer = InputByteBuffer()
        buffer.append([1, 2, 3])
        buffer.consume(1)
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.heldByteCount == 0)
        buffer.append([4])
        #expect(buffer.takeAll() == [4])
    }

    // MARK: No copies where none is needed

    @Test func appendToEmptyAdoptsTheArrayAndTakeAllHandsItBack() {
        let bytes: [UInt8] = Array(repeating: 7, count: 4096)
        let address = bytes.withUnsafeBytes { $0.baseAddress }
        var buffer = InputByteBuffer()
        buffer.append(bytes)
        #expect(buffer.withUnsafeReadableBytes { $0.baseAddress } == address)
        let taken = buffer.takeAll()
        #expect(taken.withUnsafeBytes { $0.baseAddress } == address)
        #expect(buffer.isEmpty && buffer.heldByteCount == 0)
    }

    @Test func consumingEverythingDropsTheStorage() {
        var buffer = InputByteBuffer()
        buffer.append([1, 2, 3])
        buffer.consume(3)
        #expect(buffer.heldByteCount == 0)
        // The next array is adopted again.
        let next: [UInt8] = [4, 5]
        let address = next.withUnsafeBytes { $0.baseAddress }
        buffer.append(next)
        #expect(buffer.withUnsafeReadableBytes { $0.baseAddress } == address)
    }

    // MARK: Compaction

    /// However the input is cut, the bytes held stay within twice what is unconsumed plus one
    /// append, and the bytes moved by compaction stay linear in the input.
    @Test(arguments: [1, 3, 64, 1000])
    func compactionKeepsMemoryBounded(appendSize: Int) {
        var buffer = InputByteBuffer()
        var model: [UInt8] = []
        var generator = SplitMix64(seed: UInt64(appendSize))
        var next: UInt8 = 0
        for _ in 0..<2000 {
            let bytes = (0..<appendSize).map { _ in
                next &+= 1
                return next
            }
            buffer.append(bytes)
            model += bytes
            #expect(buffer.heldByteCount <= 2 * buffer.count + appendSize)
            // Consume a random part, leaving a little behind most of the time.
            let consumed = Int(generator.next() % UInt64(buffer.count + 1))
            buffer.consume(consumed)
            model.removeFirst(consumed)
            #expect(buffer.count == model.count)
        }
        #expect(buffer.takeAll() == model)
    }

    /// Random appends, peeks, searches, consumes and takes agree with a plain array.
    @Test func randomOperationsMatchAnArray() {
        var generator = SplitMix64(seed: 34)
        var buffer = InputByteBuffer()
        var model: [UInt8] = []
        for _ in 0..<5000 {
            switch generator.next() % 6 {
            case 0:
                let bytes = (0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next() % 8) }
                buffer.append(bytes)
                model += bytes
            case 1:
                let bytes = (0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next() % 8) }
                bytes.withUnsafeBytes { buffer.append($0) }
                model += bytes
            case 2:
                let length = Int(generator.next() % UInt64(model.count + 1))
                buffer.consume(length)
                model.removeFirst(length)
            case 3:
                let length = Int(generator.next() % UInt64(model.count + 1))
                #expect(buffer.take(length) == Array(model.prefix(length)))
                model.removeFirst(length)
            case 4:
                let byte = UInt8(generator.next() % 8)
                let from = Int(generator.next() % UInt64(model.count + 2))
                let expected = from < model.count ? model[from...].firstIndex(of: byte) : nil
                #expect(buffer.firstIndex(of: byte, from: from) == expected)
            default:
                guard !model.isEmpty else { continue }
                let offset = Int(generator.next() % UInt64(model.count))
                #expect(buffer[offset] == model[offset])
                let length = Int(generator.next() % UInt64(model.count - offset + 1))
                #expect(Array(buffer.slice(from: offset, length: length)) == Array(model[offset..<(offset + length)]))
            }
            #expect(buffer.count == model.count)
            #expect(buffer.isEmpty == model.isEmpty)
        }
        #expect(buffer.takeAll() == model)
    }
}
