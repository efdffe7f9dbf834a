"""Golden MessagePack vectors from the real Python peer, for SocketIOProtocolTests.

Prints the literals of MessagePackPythonVectors.swift (run from the repository root):

    .venv/bin/python Tests/Servers/msgpack_vectors.py > /tmp/vectors.txt

Each vector is (name, python-value expression, hex of msgpack.packb(value)); values whose
encoding is long (a 65,536-byte string) keep only the header hex and the total length, the body
being a known repetition. The Socket.IO packets are python-socketio's own
MsgPackPacket(...).encode() (serializer='msgpack'), the bytes a python-socketio server sends.
Pinned versions: requirements.txt (msgpack, python-socketio).
"""
import msgpack
from socketio import msgpack_packet, packet

from importlib.metadata import version

print(f"// msgpack {version('msgpack')}, python-socketio {version('python-socketio')}")

values = [
    ("nil", "None", None),
    ("false", "False", False),
    ("true", "True", True),
    ("positive fixint 0", "0", 0),
    ("positive fixint 127", "127", 127),
    ("uint 8", "128", 128),
    ("uint 8 max", "255", 255),
    ("uint 16", "256", 256),
    ("uint 16 max", "65535", 65535),
    ("uint 32", "65536", 65536),
    ("uint 32 max", "2**32-1", 2**32 - 1),
    ("uint 64", "2**32", 2**32),
    ("uint 64 Int.max", "2**63-1", 2**63 - 1),
    ("negative fixint -1", "-1", -1),
    ("negative fixint -32", "-32", -32),
    ("int 8", "-33", -33),
    ("int 8 min", "-128", -128),
    ("int 16", "-129", -129),
    ("int 16 min", "-32768", -32768),
    ("int 32", "-32769", -32769),
    ("int 32 min", "-2**31", -2**31),
    ("int 64", "-2**31-1", -2**31 - 1),
    ("int 64 min", "-2**63", -2**63),
    ("float 64", "1.5", 1.5),
    ("float 64 negative", "-0.1", -0.1),
    ("fixstr empty", "''", ""),
    ("fixstr utf-8", "'héllo ✓'", "héllo ✓"),
    ("fixstr 31", "'a'*31", "a" * 31),
    ("str 8", "'a'*32", "a" * 32),
    ("bin 8 empty", "b''", b""),
    ("bin 8", "bytes(range(4))", bytes(range(4))),
    ("fixarray empty", "[]", []),
    ("fixarray", "[1, 'a', None]", [1, "a", None]),
    ("fixarray 15", "list(range(15))", list(range(15))),
    ("array 16", "list(range(16))", list(range(16))),
    ("fixmap empty", "{}", {}),
    ("fixmap ordered", "{'b': 1, 'a': [True, 2.5]}", {"b": 1, "a": [True, 2.5]}),
    ("map 16", "{str(i): i for i in range(16)}", {str(i): i for i in range(16)}),
    ("nested", "{'x': [{'y': [b'\\x01']}]}", {"x": [{"y": [b"\x01"]}]}),
]
long_values = [
    ("str 8 max", "'a'*255", "a" * 255),
    ("str 16", "'a'*256", "a" * 256),
    ("bin 16", "bytes(256)", bytes(256)),
    ("str 16 max", "'a'*65535", "a" * 65535),
    ("str 32", "'a'*65536", "a" * 65536),
    ("bin 16 max", "bytes(65535)", bytes(65535)),
    ("bin 32", "bytes(65536)", bytes(65536)),
    ("array 16 max", "[None]*65535", [None] * 65535),
    ("array 32", "[None]*65536", [None] * 65536),
    ("map 32", "{'%05d' % i: None for i in range(65536)}", {"%05d" % i: None for i in range(65536)}),
]
# Python-only choices (decoded by us, not what we encode): float 32, integral float 64, uint 64 > Int.max.
decode_only = [
    ("float 32", "msgpack.packb(1.5, use_single_float=True)", msgpack.packb(1.5, use_single_float=True)),
    ("integral float 64", "msgpack.packb(1.0)", msgpack.packb(1.0)),
    ("negative zero float 64", "msgpack.packb(-0.0)", msgpack.packb(-0.0)),
    ("uint 64 max", "msgpack.packb(2**64-1)", msgpack.packb(2**64 - 1)),
    ("uint 64 Int.max+1", "msgpack.packb(2**63)", msgpack.packb(2**63)),
    ("timestamp ext -1", "msgpack.packb(msgpack.Timestamp(1, 0))", msgpack.packb(msgpack.Timestamp(1, 0))),
    ("ext type 5", "msgpack.packb(msgpack.ExtType(5, b'ab'))", msgpack.packb(msgpack.ExtType(5, b"ab"))),
]

print("// values: (name, python expression, msgpack.packb hex)")
for name, expr, value in values:
    print(f'("{name}", #"{expr}"#, "{msgpack.packb(value).hex()}"),')
print("// long values: (name, python expression, header hex, total length)")
for name, expr, value in long_values:
    encoded = msgpack.packb(value)
    header = {0xd9: 2, 0xc4: 2, 0xdb: 5, 0xc6: 5, 0xdd: 5, 0xdf: 5}.get(encoded[0], 3)
    print(f'("{name}", #"{expr}"#, "{encoded[:header].hex()}", {len(encoded)}),')
print("// decode only: (name, python expression, hex)")
for name, expr, encoded in decode_only:
    print(f'("{name}", #"{expr}"#, "{encoded.hex()}"),')

packets = [
    ("connect with auth", "CONNECT, data={'token': 'x'}", packet.CONNECT, {"token": "x"}, "/", None),
    ("connect reply", "CONNECT, data={'sid': 'abc'}, namespace='/admin'", packet.CONNECT, {"sid": "abc"}, "/admin", None),
    ("connect without data", "CONNECT", packet.CONNECT, None, "/", None),
    ("disconnect", "DISCONNECT, namespace='/admin'", packet.DISCONNECT, None, "/admin", None),
    ("event", "EVENT, data=['chat', 'hi']", packet.EVENT, ["chat", "hi"], "/", None),
    ("event with ack", "EVENT, data=['echo', 1, 2.5], id=12", packet.EVENT, ["echo", 1, 2.5], "/", 12),
    ("binary event", "EVENT, data=['file', b'\\x00\\x01\\xff', {'n': [b'']}]", packet.EVENT, ["file", b"\x00\x01\xff", {"n": [b""]}], "/", None),
    ("ack", "ACK, data=['ok', None], namespace='/admin', id=13", packet.ACK, ["ok", None], "/admin", 13),
    ("binary ack", "ACK, data=[b'\\x02'], id=0", packet.ACK, [b"\x02"], "/", 0),
    ("connect error", "CONNECT_ERROR, data={'message': 'Not authorized'}", packet.CONNECT_ERROR, {"message": "Not authorized"}, "/", None),
    ("connect error string", "CONNECT_ERROR, data='nope'", packet.CONNECT_ERROR, "nope", "/", None),
]
print("// python-socketio MsgPackPacket(...).encode(): (name, constructor arguments, hex)")
for name, expr, ptype, data, nsp, pid in packets:
    pkt = msgpack_packet.MsgPackPacket(packet_type=ptype, data=data, namespace=nsp, id=pid)
    print(f'("{name}", #"{expr}"#, "{pkt.encode().hex()}"),')

# notepack.io (socket.io-msgpack-parser's encoder) is not installed and npm is unreachable from
# these machines: its extension bytes are written here with python's ExtType exactly as its
# lib/encode.js writes them (undefined: fixext 1 type 0 with a 0 byte; Date: fixext 8 type 0,
# big-endian int 64 milliseconds; ArrayBuffer: ext 8 type 0; BigInt: ext 8 type 1, decimal).
Ext = msgpack.ExtType
undefined = Ext(0, b"\x00")


def date(ms):
    return Ext(0, ms.to_bytes(8, "big", signed=True))


notepack = [
    ("server CONNECT reply, pid undefined", "{type: 0, data: {sid: 'abc', pid: undefined}, nsp: '/'}",
     {"type": 0, "data": {"sid": "abc", "pid": undefined}, "nsp": "/"}),
    ("client CONNECT, data undefined", "{type: 0, data: undefined, nsp: '/admin'}",
     {"type": 0, "data": undefined, "nsp": "/admin"}),
    ("client emit with options", "{type: 2, data: ['hi', undefined], options: {compress: true}, id: 3, nsp: '/'}",
     {"type": 2, "data": ["hi", undefined], "options": {"compress": True}, "id": 3, "nsp": "/"}),
    ("server ack order", "{id: 7, type: 3, data: [new Date(1577934245678)], nsp: '/'}",
     {"id": 7, "type": 3, "data": [date(1577934245678)], "nsp": "/"}),
    ("dates", "[new Date(-1), new Date(253402300800000), new Date(-62198755200001), new Date(8.64e15 + 1)]",
     [date(-1), date(253402300800000), date(-62198755200001), date(8_640_000_000_000_001)]),
    ("array buffer and bigint", "[new Uint8Array([1, 2, 3]).buffer, 123n]",
     [Ext(0, b"\x01\x02\x03"), Ext(1, b"123")]),
]
print("// notepack.io per lib/encode.js: (name, JavaScript value, hex)")
for name, expr, value in notepack:
    print(f'("{name}", #"{expr}"#, "{msgpack.packb(value).hex()}"),')
