// UTF-8 validation micro-benchmark (release build; not a test): RealtimeEncoding's
// `UTF8Validator` next to the two validators it replaced (BaselineUTF8.swift), on ASCII JSON,
// accent-dense Latin, CJK and emoji text of each size, in one process.
//
//   swift run -c release EncodingBenchmark [--samples S] [--bytes B] [--sizes 1024,1048576]
//                                          [--pool-bytes P]
//
// "whole" is the check of a whole buffer (`firstInvalidOffset(in:)`: the JSON and MessagePack
// parsers, Engine.IO packets), "WS" the incremental validator over a whole message (WebSocket
// text). Each sample validates every input with every validator, in a rotating order, B bytes
// per measure (default 16 MiB), timed on the thread's CPU clock; the table gives the median of
// S samples (default 15) in GB/s and the ratio new / old (above 1: the new one is faster). A
// size below P bytes (default 256 KiB) is a pool of distinct messages validated in turn
// (BenchmarkInput.swift says why); `--pool-bytes 1` validates one message over and over.
import BenchmarkSupport
import RealtimeEncoding

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let samples = option("samples").flatMap { Int($0) } ?? 15
let bytesPerMeasure = option("bytes").flatMap { Int($0) } ?? 16 << 20
let sizes = (option("sizes") ?? "1024,1048576").split(separator: ",").compactMap { Int($0) }
let poolBytes = option("pool-bytes").flatMap { Int($0) } ?? 256 << 10

/// A validator under test: `true` when the whole buffer is valid.
struct Contender {
    let name: String
    let validate: (UnsafeBufferPointer<UInt8>) -> Bool
}

// Called through closures, so neither side is inlined into the timing loop or hoisted out of it.
let contenders: [Contender] = [
    Contender(name: "old whole") { BaselineUTF8Validation.firstInvalidOffset(in: $0) == nil },
    Contender(name: "new whole") { UTF8Validator.firstInvalidOffset(in: $0) == nil },
    Contender(name: "old WS") { BaselineWebSocketUTF8Validator.isValid(UnsafeRawBufferPointer($0)) },
    Contender(name: "new WS") { UTF8Validator.isValid(UnsafeRawBufferPointer($0)) },
]

let inputs = sizes.flatMap { size in
    BenchmarkInput.Kind.allCases.map { BenchmarkInput($0, size: size, poolBytes: poolBytes) }
}

// Every contender must accept every message (all are well-formed) before anything is timed.
for input in inputs {
    for message in input.messages {
        for contender in contenders where !message.withUnsafeBufferPointer(contender.validate) {
            print("\(contender.name) rejects a message of \(input.name) (\(message.count) bytes)")
            exit(1)
        }
    }
}

/// Seconds of thread CPU for `passes` validations, one message after another.
func measure(_ contender: Contender, _ messages: [[UInt8]], passes: Int) -> Double {
    let buffers = messages.map { UnsafeBufferPointer(start: $0.withUnsafeBufferPointer { copy($0) }, count: $0.count) }
    defer { for buffer in buffers { buffer.deallocate() } }
    var accepted = 0
    var next = 0
    let start = Measure.threadCPUSeconds()
    for _ in 0..<passes {
        if contender.validate(buffers[next]) { accepted += 1 }
        next = next + 1 == buffers.count ? 0 : next + 1
    }
    let seconds = Measure.threadCPUSeconds() - start
    precondition(accepted == passes)
    return seconds
}

/// A heap copy of `buffer` that outlives the closure it was made in.
func copy(_ buffer: UnsafeBufferPointer<UInt8>) -> UnsafePointer<UInt8> {
    let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, buffer.count))
    _ = copy.initialize(from: buffer)
    return UnsafePointer(copy.baseAddress!)
}

// results[input][contender]: GB/s of each sample.
var results = [[[Double]]](repeating: [[Double]](repeating: [], count: contenders.count), count: inputs.count)
for sample in 0..<samples {
    for (inputIndex, input) in inputs.enumerated() {
        let averageSize = max(1, input.byteCount / input.messages.count)
        let passes = max(1, bytesPerMeasure / averageSize)
        let bytes = Double(passes) * Double(input.byteCount) / Double(input.messages.count)
        for turn in 0..<contenders.count {
            let contenderIndex = (turn + sample) % contenders.count
            let seconds = measure(contenders[contenderIndex], input.messages, passes: passes)
            results[inputIndex][contenderIndex].append(bytes / seconds / 1e9)
        }
    }
}

func size(_ count: Int) -> String {
    count >= 1 << 20 ? "\(count >> 20) MiB" : count >= 1024 ? "\(count >> 10) KiB" : "\(count) B"
}

/// `value` with two decimals.
func cell(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
}

print(
    "UTF-8 validation, GB/s, median of \(samples) samples of \(bytesPerMeasure >> 20) MiB "
        + "(new/old above 1: the new one is faster)")
print("| input | size | messages | non-ASCII | old whole | new whole | new/old | old WS | new WS | new/old |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (inputIndex, input) in inputs.enumerated() {
    let medians: [Double] = results[inputIndex].map { Measure.median($0) }
    let share = Int((input.nonASCIIShare * 100).rounded())
    let row: [String] = [
        input.name, size(sizes[inputIndex / BenchmarkInput.Kind.allCases.count]), "\(input.messages.count)", "\(share)%",
        cell(medians[0]), cell(medians[1]), cell(medians[1] / medians[0]),
        cell(medians[2]), cell(medians[3]), cell(medians[3] / medians[2]),
    ]
    print("| " + row.joined(separator: " | ") + " |")
}
