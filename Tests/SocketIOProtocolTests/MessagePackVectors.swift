import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// Golden MessagePack bytes from the real peers.
///
/// Made once with `.venv/bin/python Tests/Servers/msgpack_vectors.py` (msgpack 1.2.4,
/// python-socketio 5.18.1, pinned in requirements.txt), whose output lists each vector's python
/// expression and hex; the Swift values below are those expressions written as ``JSONValue``.
/// notepack.io (the JavaScript encoder of socket.io-msgpack-parser) is not installed and npm is
/// unreachable here, so the notepack vectors are python `ExtType` bytes laid out exactly as
/// notepack.io's `lib/encode.js` writes them (the script says how); the Date strings are
/// node 20's `new Date(ms).toISOString()`.
enum MessagePackVectors {
    /// A value and `msgpack.packb(value)`: our encoder writes the same bytes, and the decoder
    /// reads them back to the value.
    struct Exact: Sendable, CustomTestStringConvertible {
        var name: String
        var value: JSONValue
        var hex: String
        var bytes: [UInt8] { [UInt8](hex: self.hex) }
        var testDescription: String { self.name }
    }

    /// A long value: `msgpack.packb(value)` starts with `header` and is `count` bytes long.
    struct Long: Sendable, CustomTestStringConvertible {
        var name: String
        var value: JSONValue
        var header: String
        var count: Int
        var testDescription: String { self.name }
    }

    /// Bytes another encoder writes, and the value the decoder reads from them.
    struct Decoded: Sendable, CustomTestStringConvertible {
        var name: String
        var hex: String
        var value: JSONValue
        var bytes: [UInt8] { [UInt8](hex: self.hex) }
        var testDescription: String { self.name }
    }

    static let exact: [Exact] = [
        Exact(name: "nil", value: .null, hex: "c0"),
        Exact(name: "false", value: false, hex: "c2"),
        Exact(name: "true", value: true, hex: "c3"),
        Exact(name: "positive fixint 0", value: 0, hex: "00"),
        Exact(name: "positive fixint 127", value: 127, hex: "7f"),
        Exact(name: "uint 8", value: 128, hex: "cc80"),
        Exact(name: "uint 8 max", value: 255, hex: "ccff"),
        Exact(name: "uint 16", value: 256, hex: "cd0100"),
        Exact(name: "uint 16 max", value: 65535, hex: "cdffff"),
        Exact(name: "uint 32", value: 65536, hex: "ce00010000"),
        Exact(name: "uint 32 max", value: .int(1 << 32 - 1), hex: "ceffffffff"),
        Exact(name: "uint 64", value: .int(1 << 32), hex: "cf0000000100000000"),
        Exact(name: "uint 64 Int.max", value: .int(.max), hex: "cf7fffffffffffffff"),
        Exact(name: "negative fixint -1", value: -1, hex: "ff"),
        Exact(name: "negative fixint -32", value: -32, hex: "e0"),
        Exact(name: "int 8", value: -33, hex: "d0df"),
        Exact(name: "int 8 min", value: -128, hex: "d080"),
        Exact(name: "int 16", value: -129, hex: "d1ff7f"),
        Exact(name: "int 16 min", value: -32768, hex: "d18000"),
        Exact(name: "int 32", value: -32769, hex: "d2ffff7fff"),
        Exact(name: "int 32 min", value: .int(-(1 << 31)), hex: "d280000000"),
        Exact(name: "int 64", value: .int(-(1 << 31) - 1), hex: "d3ffffffff7fffffff"),
        Exact(name: "int 64 min", value: .int(.min), hex: "d38000000000000000"),
        Exact(name: "float 64", value: 1.5, hex: "cb3ff8000000000000"),
        Exact(name: "float 64 negative", value: -0.1, hex: "cbbfb999999999999a"),
        Exact(name: "fixstr empty", value: "", hex: "a0"),
        Exact(name: "fixstr utf-8", value: "héllo ✓", hex: "aa68c3a96c6c6f20e29c93"),
        Exact(name: "fixstr 31", value: .string(String(repeating: "a", count: 31)), hex: "bf" + String(repeating: "61", count: 31)),
        Exact(name: "str 8", value: .string(String(repeating: "a", count: 32)), hex: "d920" + String(repeating: "61", count: 32)),
        Exact(name: "bin 8 empty", value: .binary([]), hex: "c400"),
        Exact(name: "bin 8", value: .binary([0, 1, 2, 3]), hex: "c40400010203"),
        Exact(name: "fixarray empty", value: [], hex: "90"),
        Exact(name: "fixarray", value: [1, "a", nil], hex: "9301a161c0"),
        Exact(name: "fixarray 15", value: .array((0..<15).map { .int($0) }), hex: "9f000102030405060708090a0b0c0d0e"),
        Exact(name: "array 16", value: .array((0..<16).map { .int($0) }), hex: "dc0010000102030405060708090a0b0c0d0e0f"),
        Exact(name: "fixmap empty", value: .object([:]), hex: "80"),
        Exact(name: "fixmap ordered", value: ["b": 1, "a": [true, 2.5]], hex: "82a16201a16192c3cb4004000000000000"),
        Exact(
            name: "map 16", value: .object(JSONObject((0..<16).map { (String($0), .int($0)) })),
            hex: "de0010a13000a13101a13202a13303a13404a13505a13606a13707a13808a13909a231300aa231310ba231320ca231330da231340ea231350f"
        ),
        Exact(name: "nested", value: ["x": [["y": [.binary([1])]]]], hex: "81a1789181a17991c40101"),
    ]

    static let long: [Long] = [
        Long(name: "str 8 max", value: .string(String(repeating: "a", count: 255)), header: "d9ff", count: 257),
        Long(name: "str 16", value: .string(String(repeating: "a", count: 256)), header: "da0100", count: 259),
        Long(name: "str 16 max", value: .string(String(repeating: "a", count: 65535)), header: "daffff", count: 65538),
        Long(name: "str 32", value: .string(String(repeating: "a", count: 65536)), header: "db00010000", count: 65541),
        Long(name: "bin 16", value: .binary([UInt8](repeating: 0, count: 256)), header: "c50100", count: 259),
        Long(name: "bin 16 max", value: .binary([UInt8](repeating: 0, count: 65535)), header: "c5ffff", count: 65538),
        Long(name: "bin 32", value: .binary([UInt8](repeating: 0, count: 65536)), header: "c600010000", count: 65541),
        Long(name: "array 16 max", value: .array(Array(repeating: .null, count: 65535)), header: "dcffff", count: 65538),
        Long(name: "array 32", value: .array(Array(repeating: .null, count: 65536)), header: "dd00010000", count: 65541),
        Long(
            name: "map 32",
            value: .object(JSONObject((0..<65536).map { (String(repeating: "0", count: 5 - String($0).count) + String($0), .null) })),
            header: "df00010000", count: 458757
        ),
    ]

    /// python `msgpack.packb` choices that differ from notepack.io's, and extensions.
    static let pythonDecodeOnly: [Decoded] = [
        Decoded(name: "float 32 (use_single_float=True)", hex: "ca3fc00000", value: 1.5),
        Decoded(name: "integral float 64 (packb(1.0))", hex: "cb3ff0000000000000", value: .double(1)),
        Decoded(name: "negative zero float 64", hex: "cb8000000000000000", value: .double(-0.0)),
        Decoded(name: "uint 64 max", hex: "cfffffffffffffffff", value: .double(18_446_744_073_709_551_615)),
        Decoded(name: "uint 64 Int.max + 1", hex: "cf8000000000000000", value: .double(9_223_372_036_854_775_808)),
        Decoded(name: "timestamp ext -1 (notepack: [type, bin])", hex: "d6ff00000001", value: [-1, .binary([0, 0, 0, 1])]),
        Decoded(name: "ExtType(5, b'ab') (notepack: [type, bin])", hex: "d5056162", value: [5, .binary([0x61, 0x62])]),
    ]

    /// notepack.io's bytes for JavaScript values (see the type's discussion).
    static let notepack: [Decoded] = [
        Decoded(
            name: "server CONNECT reply, pid undefined",
            hex: "83a47479706500a46461746182a3736964a3616263a3706964d40000a36e7370a12f",
            value: ["type": 0, "data": ["sid": "abc"], "nsp": "/"]
        ),
        Decoded(
            name: "client CONNECT, data undefined",
            hex: "83a47479706500a464617461d40000a36e7370a62f61646d696e",
            value: ["type": 0, "nsp": "/admin"]
        ),
        Decoded(
            name: "client emit with options",
            hex: "85a47479706502a46461746192a26869d40000a76f7074696f6e7381a8636f6d7072657373c3a2696403a36e7370a12f",
            value: ["type": 2, "data": ["hi", nil], "options": ["compress": true], "id": 3, "nsp": "/"]
        ),
        Decoded(
            name: "server ack order, Date",
            hex: "84a2696407a47479706503a46461746191d7000000016f6435cf2ea36e7370a12f",
            value: ["id": 7, "type": 3, "data": ["2020-01-02T03:04:05.678Z"], "nsp": "/"]
        ),
        Decoded(
            name: "dates before 1970, after 9999, before year 0, out of range",
            hex: "94d700ffffffffffffffffd7000000e677d21fdc00d700ffffc76e394a73ffd700001eb208c2dc0001",
            value: ["1969-12-31T23:59:59.999Z", "+010000-01-01T00:00:00.000Z", "-000002-12-31T23:59:59.999Z", nil]
        ),
        Decoded(
            name: "ArrayBuffer and BigInt",
            hex: "92c70300010203c70301313233",
            value: [.binary([1, 2, 3]), [1, .binary([0x31, 0x32, 0x33])]]
        ),
    ]
}

/// python-socketio 5.18.1 `MsgPackPacket(...).encode()`: the bytes a python-socketio server
/// with `serializer='msgpack'` sends (made by `Tests/Servers/msgpack_vectors.py`).
enum SocketMessagePackVectors {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var packet: SocketPacketValue
        var hex: String
        var bytes: [UInt8] { [UInt8](hex: self.hex) }
        var testDescription: String { self.name }
    }

    static let python: [Vector] = [
        Vector(
            name: "connect with auth", packet: .init(.connect, data: ["token": "x"]), hex: "83a47479706500a46461746181a5746f6b656ea178a36e7370a12f"),
        Vector(
            name: "connect reply", packet: .init(.connect, namespace: "/admin", data: ["sid": "abc"]),
            hex: "83a47479706500a46461746181a3736964a3616263a36e7370a62f61646d696e"
        ),
        Vector(name: "connect without data", packet: .init(.connect), hex: "83a47479706500a464617461c0a36e7370a12f"),
        Vector(name: "disconnect", packet: .init(.disconnect, namespace: "/admin"), hex: "83a47479706501a464617461c0a36e7370a62f61646d696e"),
        Vector(name: "event", packet: .init(.event, data: ["chat", "hi"]), hex: "83a47479706502a46461746192a463686174a26869a36e7370a12f"),
        Vector(
            name: "event with ack", packet: .init(.event, ackID: 12, data: ["echo", 1, 2.5]),
            hex: "84a47479706502a46461746193a46563686f01cb4004000000000000a36e7370a12fa269640c"
        ),
        Vector(
            name: "binary event", packet: .init(.event, data: ["file", .binary([0, 1, 0xff]), ["n": [.binary([])]]]),
            hex: "83a47479706502a46461746193a466696c65c4030001ff81a16e91c400a36e7370a12f"
        ),
        Vector(
            name: "ack", packet: .init(.ack, namespace: "/admin", ackID: 13, data: ["ok", nil]),
            hex: "84a47479706503a46461746192a26f6bc0a36e7370a62f61646d696ea269640d"
        ),
        Vector(name: "binary ack", packet: .init(.ack, ackID: 0, data: [.binary([2])]), hex: "84a47479706503a46461746191c40102a36e7370a12fa2696400"),
        Vector(
            name: "connect error", packet: .init(.connectError, data: ["message": "Not authorized"]),
            hex: "83a47479706504a46461746181a76d657373616765ae4e6f7420617574686f72697a6564a36e7370a12f"
        ),
        Vector(name: "connect error string", packet: .init(.connectError, data: "nope"), hex: "83a47479706504a464617461a46e6f7065a36e7370a12f"),
    ]
}

/// A ``SocketPacket`` description that is `Sendable` test data.
struct SocketPacketValue: Sendable {
    var packet: SocketPacket
    init(_ type: SocketPacketType, namespace: String = "/", ackID: Int? = nil, data: JSONValue? = nil) {
        self.packet = SocketPacket(type: type, namespace: namespace, ackID: ackID, data: data)
    }
}

extension [UInt8] {
    /// Bytes from lower-case hex digits.
    init(hex: String) {
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in hex.unicodeScalars {
            let digit = UInt8(String(scalar), radix: 16)!
            if let value = high {
                bytes.append(value << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        self = bytes
    }

    /// Lower-case hex digits.
    var hex: String {
        self.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
