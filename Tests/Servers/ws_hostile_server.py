"""A hand-written asyncio WebSocket server that misbehaves on purpose (one behaviour per path).

Binds 127.0.0.1 on a free port and prints PORT=<n>. After a correct handshake (unless the
path says otherwise) it sends what the path names, then reads the client's frames and prints
CLOSE=<code> when a close frame arrives, PONG=<hex payload> for pongs, EOF when the client
closes TCP. Paths:
  /oversize         binary frame header declaring 1 GiB, then 1 KiB of payload
  /invalid-utf8     text frame with invalid UTF-8
  /invalid-utf8-fragment  first fragment of a text message holding an impossible sequence
  /masked           a masked text frame (servers must not mask)
  /reserved-opcode  a frame with opcode 0x3
  /bad-close-code   a close frame with code 1005
  /ping             a ping with payload "hostile", then waits
  /drop             one text message "bye", then closes TCP without a close frame
  /bad-accept       101 with a wrong Sec-WebSocket-Accept
  /forbidden        403 instead of 101
  /silent           accepts TCP, never answers the handshake
  /deflate-bomb     accepts permessage-deflate, then one compressed binary message
                    (64 KiB on the wire) that inflates to 64 MiB of zeros (a compression bomb)
  /endless-message  a binary message in 64 KiB fragments that never ends (no FIN)
  /garbage          101, then bytes that are not WebSocket frames (an HTTP response)
  /slow-handshake   the 101 response one byte per second
"""
import asyncio
import base64
import hashlib
import struct
import zlib
import loopback

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode, payload, fin=True, mask=None, length=None, rsv1=False):
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    n = len(payload) if length is None else length
    mask_bit = 0x80 if mask else 0
    if n < 126:
        header = struct.pack("!BB", first, mask_bit | n)
    elif n < 65536:
        header = struct.pack("!BBH", first, mask_bit | 126, n)
    else:
        header = struct.pack("!BBQ", first, mask_bit | 127, n)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        header += mask
    return header + payload


async def read_frames(reader):
    while True:
        head = await reader.readexactly(2)
        opcode, length = head[0] & 0x0F, head[1] & 0x7F
        if length == 126:
            length = struct.unpack("!H", await reader.readexactly(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", await reader.readexactly(8))[0]
        mask = await reader.readexactly(4) if head[1] & 0x80 else b"\0\0\0\0"
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(await reader.readexactly(length)))
        yield opcode, payload


async def handle(reader, writer):
    try:
        request = await reader.readuntil(b"\r\n\r\n")
        lines = request.decode("latin-1").split("\r\n")
        path = lines[0].split(" ")[1]
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        if path == "/silent":
            await asyncio.sleep(30)
            return
        if path == "/forbidden":
            writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + GUID).digest())
        if path == "/bad-accept":
            accept = base64.b64encode(b"x" * 20)
        extensions = b""
        if path == "/deflate-bomb" and "permessage-deflate" in headers.get("sec-websocket-extensions", ""):
            extensions = b"Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n"
        response = (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Accept: " + accept + b"\r\n" + extensions + b"\r\n")
        if path == "/slow-handshake":
            for byte in response:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(1)
        writer.write(response)
        if path == "/oversize":
            writer.write(frame(0x2, b"\0" * 1024, length=1 << 30))
        elif path == "/deflate-bomb":
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = compressor.compress(b"\0" * (64 << 20)) + compressor.flush(zlib.Z_SYNC_FLUSH)
            writer.write(frame(0x2, payload[:-4], rsv1=True))
        elif path == "/endless-message":
            piece = b"\0" * 65536
            writer.write(frame(0x2, piece, fin=False))
            try:
                while True:
                    writer.write(frame(0x0, piece, fin=False))
                    await writer.drain()
            except ConnectionError:
                pass
        elif path == "/garbage":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        elif path == "/invalid-utf8":
            writer.write(frame(0x1, b"hello \xc0\xaf world"))
        elif path == "/invalid-utf8-fragment":
            writer.write(frame(0x1, b"\xce\xba\xf4\x90", fin=False))
        elif path == "/masked":
            writer.write(frame(0x1, b"masked", mask=b"\x01\x02\x03\x04"))
        elif path == "/reserved-opcode":
            writer.write(frame(0x3, b""))
        elif path == "/bad-close-code":
            writer.write(frame(0x8, struct.pack("!H", 1005)))
        elif path == "/ping":
            writer.write(frame(0x9, b"hostile"))
        elif path == "/drop":
            writer.write(frame(0x1, b"bye"))
            await writer.drain()
            writer.close()
            return
        await writer.drain()
        async for opcode, payload in read_frames(reader):
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                print(f"CLOSE={code}", flush=True)
                break
            if opcode == 0xA:
                print(f"PONG={payload.hex()}", flush=True)
    except (asyncio.IncompleteReadError, ConnectionError):
        print("EOF", flush=True)
    finally:
        writer.close()


if __name__ == "__main__":
    loopback.serve_streams(handle)
