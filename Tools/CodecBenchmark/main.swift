// Parse-only micro-benchmark of the wire codecs' input side (release build; not a test): the
// WebSocket frame decoder, the HTTP/1.1 response parser and the SSE parser on in-memory
// input, no sockets, no tasks. It isolates what their input byte buffer costs, which the
// end-to-end benchmarks (scripts/bench-sse.sh, scripts/bench-websocket.sh) mix with the kernel's
// share.
//
//   swift run -c release CodecBenchmark [--samples S] [--only NAME]
//
// Each sample runs every workload once, in a rotating order, timed on the thread's CPU clock;
// the table gives the median of S samples (default 9) in MB/s of input and ns per item (frame,
// response, event or chunk).
import BenchmarkSupport
import HTTP1Codec
import SSEProtocol
import WebSocketCodec

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let samples = option("samples").flatMap { Int($0) } ?? 9
let only = option("only")

/// One measured job: `run` parses its input once and returns how many items it produced.
struct Workload {
    let name: String
    let inputBytes: Int
    let run: () -> Int
}

/// `bytes` cut into arrays of `size` bytes, as reads from a socket arrive.
func pieces(_ bytes: [UInt8], size: Int) -> [[UInt8]] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
}

// MARK: - WebSocket

/// Unmasked server frames (what a client decodes): `count` frames of `payload` bytes.
func serverFrames(count: Int, payload: Int, opcode: UInt8) -> [UInt8] {
    var frame: [UInt8] = [0x80 | opcode]
    if payload < 126 {
        frame.append(UInt8(payload))
    } else if payload <= 0xFFFF {
        frame += [126, UInt8(payload >> 8), UInt8(payload & 0xFF)]
    } else {
        frame.append(127)
        for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload >> shift) & 0xFF)) }
    }
    frame += [UInt8](repeating: UInt8(ascii: "a"), count: payload)
    var stream: [UInt8] = []
    stream.reserveCapacity(frame.count * count)
    for _ in 0..<count { stream += frame }
    return stream
}

/// Decodes the reads the way the WebSocket connection does: a whole text message first, a
/// frame otherwise.
func webSocketWorkload(_ name: String, reads: [[UInt8]], wholeText: Bool) -> Workload {
    Workload(name: name, inputBytes: reads.reduce(0) { $0 + $1.count }) {
        var decoder = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 64 << 20)
        var decoded = 0
        for read in reads {
            decoder.append(read)
            while true {
                if wholeText, let text = decoder.nextWholeText(maxLength: 1 << 20) {
                    decoded += text.utf8.count > 0 ? 1 : 0
                    continue
                }
                guard let frame = try? decoder.nextFrame() else { break }
                decoded += frame.payload.count >= 0 ? 1 : 0
            }
        }
        return decoded
    }
}

// MARK: - HTTP

/// One response head with a chunked body of `chunks` chunks of `chunkSize` bytes.
func chunkedResponse(chunks: Int, chunkSize: Int) -> [UInt8] {
    var bytes = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
            .utf8)
    let chunk = Array(String(chunkSize, radix: 16).utf8) + [13, 10] + [UInt8](repeating: UInt8(ascii: "d"), count: chunkSize) + [13, 10]
    bytes.reserveCapacity(bytes.count + chunk.count * chunks + 5)
    for _ in 0..<chunks { bytes += chunk }
    bytes += Array("0\r\n\r\n".utf8)
    return bytes
}

/// `count` keep-alive responses with ten header fields and a 2-byte body each.
func smallResponses(count: Int) -> [UInt8] {
    let response = Array(
        ("HTTP/1.1 200 OK\r\nServer: benchmark\r\nDate: Sun, 06 Dec 2026 17:00:00 GMT\r\n"
            + "Content-Type: text/plain; charset=UTF-8\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n"
            + "Access-Control-Allow-Origin: *\r\nX-Request-Id: 0123456789abcdef\r\nVary: Origin\r\n"
            + "Set-Cookie: io=abcdefghijklmnop; Path=/; HttpOnly\r\nContent-Length: 2\r\n\r\nok").utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(response.count * count)
    for _ in 0..<count { bytes += response }
    return bytes
}

/// Counts heads (`countsHeads`) or body pieces.
func httpWorkload(_ name: String, reads: [[UInt8]], responses: Int, countsHeads: Bool) -> Workload {
    Workload(name: name, inputBytes: reads.reduce(0) { $0 + $1.count }) {
        var parser = HTTPResponseParser()
        for _ in 0..<responses { parser.expectResponse(toMethod: "GET") }
        var counted = 0
        for read in reads {
            parser.append(read)
            while let event = try? parser.next() {
                switch event {
                case .head: counted += countsHeads ? 1 : 0
                case .body: counted += countsHeads ? 0 : 1
                case .end: break
                }
            }
        }
        return counted
    }
}

// MARK: - SSE

func sseWorkload(_ name: String, reads: [[UInt8]]) -> Workload {
    Workload(name: name, inputBytes: reads.reduce(0) { $0 + $1.count }) {
        var parser = SSEParser(configuration: .init(maximumLineLength: 1 << 30, maximumEventSize: 1 << 30))
        var counted = 0
        for read in reads {
            try? parser.feed(read, events: { event in counted += event.data.isEmpty ? 0 : 1 }, { _ in })
        }
        return counted
    }
}

/// The parser fed from memory it does not own (`feed(_:)` with a pointer): every `data` byte
/// goes through its data buffer.
func ssePointerWorkload(_ name: String, input: [UInt8], readSize: Int) -> Workload {
    Workload(name: name, inputBytes: input.count) {
        var parser = SSEParser(configuration: .init(maximumLineLength: 1 << 30, maximumEventSize: 1 << 30))
        var counted = 0
        input.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = min(offset + readSize, raw.count)
                try? parser.feed(
                    UnsafeRawBufferPointer(rebasing: raw[offset..<end]),
                    events: { event in counted += event.data.isEmpty ? 0 : 1 }, { _ in })
                offset = end
            }
        }
        return counted
    }
}

// MARK: - Workloads

let smallText = serverFrames(count: 100_000, payload: 64, opcode: 0x1)
let largeBinary = serverFrames(count: 64, payload: 1 << 20, opcode: 0x2)
let chunked = chunkedResponse(chunks: 8_192, chunkSize: 8 << 10)
let contentLength = Array("HTTP/1.1 200 OK\r\nContent-Length: \(16 << 20)\r\n\r\n".utf8) + [UInt8](repeating: 0x62, count: 16 << 20)
let heads = smallResponses(count: 5_000)
let event = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 56) + Array("\n\n".utf8)
let events = [[UInt8]](repeating: event, count: 100_000).flatMap { $0 }
let largeEvent = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: (16 << 20) - 8) + Array("\n\n".utf8)

var workloads: [Workload] = [
    webSocketWorkload("ws 64 B text, 64 KiB reads", reads: pieces(smallText, size: 64 << 10), wholeText: true),
    webSocketWorkload("ws 64 B frames, 64 KiB reads", reads: pieces(smallText, size: 64 << 10), wholeText: false),
    webSocketWorkload("ws 64 B text, 100 B reads", reads: pieces(smallText, size: 100), wholeText: true),
    webSocketWorkload("ws 64 B text, 7 B reads", reads: pieces(Array(smallText[0..<(66 * 20_000)]), size: 7), wholeText: true),
    webSocketWorkload("ws 1 MiB binary, 64 KiB reads", reads: pieces(largeBinary, size: 64 << 10), wholeText: false),
    httpWorkload("http chunked 8 KiB, 256 KiB reads", reads: pieces(chunked, size: 256 << 10), responses: 1, countsHeads: false),
    httpWorkload(
        "http chunked 8 KiB, 1000 B reads", reads: pieces(Array(chunked[0..<(chunked.count / 4)]), size: 1000), responses: 1, countsHeads: false),
    httpWorkload("http 16 MiB body, 256 KiB reads", reads: pieces(contentLength, size: 256 << 10), responses: 1, countsHeads: false),
    httpWorkload("http 5,000 heads, 4 KiB reads", reads: pieces(heads, size: 4 << 10), responses: 5_000, countsHeads: true),
    httpWorkload("http 1,000 heads, 13 B reads", reads: pieces(Array(heads[0..<(heads.count / 5)]), size: 13), responses: 1_000, countsHeads: true),
    sseWorkload("sse 64 B events, 256 KiB reads", reads: pieces(events, size: 256 << 10)),
    sseWorkload("sse 64 B events, 61 B reads", reads: pieces(events, size: 61)),
    ssePointerWorkload("sse 64 B events, 64 KiB pointer reads", input: events, readSize: 64 << 10),
    ssePointerWorkload("sse 16 MiB event, 64 KiB pointer reads", input: largeEvent, readSize: 64 << 10),
    sseWorkload("sse 16 MiB event, 256 KiB reads", reads: pieces(largeEvent, size: 256 << 10)),
]
if let only { workloads = workloads.filter { $0.name.contains(only) } }

var timings = [[Double]](repeating: [], count: workloads.count)
var itemCounts = [Int](repeating: 0, count: workloads.count)
for sample in 0..<samples {
    for step in 0..<workloads.count {
        let index = (sample + step) % workloads.count
        let start = Measure.threadCPUSeconds()
        let items = workloads[index].run()
        timings[index].append(Measure.threadCPUSeconds() - start)
        itemCounts[index] = items
    }
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + padding : padding + text
}
func format(_ value: Double, _ digits: Int) -> String {
    var text = String(Int((value * pow10(digits)).rounded()))
    if digits > 0 {
        while text.count <= digits { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
    }
    return text
}
func pow10(_ digits: Int) -> Double { (0..<digits).reduce(1.0) { value, _ in value * 10 } }

print("median of \(samples) samples, thread CPU time")
print(pad("workload", 36, left: true) + pad("items", 10) + pad("MB/s", 12) + pad("ns/item", 12) + pad("min ms", 10) + pad("max ms", 10))
for (index, workload) in workloads.enumerated() {
    let median = Measure.median(timings[index])
    let items = itemCounts[index]
    print(
        pad(workload.name, 36, left: true) + pad(String(items), 10)
            + pad(format(Double(workload.inputBytes) / median / 1e6, 1), 12)
            + pad(format(median * 1e9 / Double(max(1, items)), 1), 12)
            + pad(format((timings[index].min() ?? 0) * 1e3, 2), 10) + pad(format((timings[index].max() ?? 0) * 1e3, 2), 10))
}
