"""A raw asyncio HTTP peer that misbehaves on purpose, for the client's error tests.

Binds 127.0.0.1 on a free port and prints PORT=<n> first. It reads one request head and
answers by path:
  /close-delimited   HTTP/1.0 200 without Content-Length, body "streamed until close", then closes
  /truncated-chunked chunked head and one chunk, then closes without the last chunk
  /reset             Content-Length 100000, 10 bytes of body, then a TCP reset (SO_LINGER 0)
  /huge-header       a 200 KiB header field
  /never             reads the request and never answers
  /bad-status        "HTTP/1.1 OK" (malformed status line)
  /chunks-in-one-write  a chunked response whose head and three chunks go out in one write,
                     then stays open (the client must deliver every chunk, not only the first)
  /header-never-ends a header line without its CRLF: 64 KiB pieces of it until the client goes
  /chunk-size-2-63   chunked, first chunk size 8000000000000000 (2^63), then endless bytes
  /chunk-size-2-64   chunked, first chunk size 10000000000000000 (2^64, overflows 64 bits)
"""
import asyncio
import socket
import struct
import loopback


async def endless(writer):
    """Writes 64 KiB pieces of "a" until the client closes the connection."""
    piece = b"a" * 65536
    try:
        while True:
            writer.write(piece)
            await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def handle(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    path = head.split(b" ", 2)[1].decode()
    if path == "/close-delimited":
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nstreamed ")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(b"until close")
        await writer.drain()
        writer.close()
    elif path == "/truncated-chunked":
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()
    elif path == "/reset":
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n0123456789")
        await writer.drain()
        await asyncio.sleep(0.1)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
    elif path == "/huge-header":
        writer.write(b"HTTP/1.1 200 OK\r\nX-Huge: " + b"h" * (200 * 1024) + b"\r\nContent-Length: 0\r\n\r\n")
        try:
            await writer.drain()
        except ConnectionError:
            pass
        writer.close()
    elif path == "/never":
        await asyncio.sleep(3600)
    elif path == "/chunks-in-one-write":
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"5\r\nfirst\r\n6\r\nsecond\r\n5\r\nthird\r\n")
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.write(b"0\r\n\r\n")
        await writer.drain()
    elif path == "/header-never-ends":
        writer.write(b"HTTP/1.1 200 OK\r\nX-Endless: ")
        await endless(writer)
    elif path in ("/chunk-size-2-63", "/chunk-size-2-64"):
        size = b"8000000000000000" if path.endswith("63") else b"10000000000000000"
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + size + b"\r\n")
        await endless(writer)
    elif path == "/bad-status":
        writer.write(b"HTTP/1.1 OK\r\n\r\n")
        await writer.drain()
        writer.close()
    else:
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()


if __name__ == "__main__":
    loopback.serve_streams(handle)
