"""Loopback TCP peer for RealtimeIO tests.

Binds 127.0.0.1 (or --host) on a kernel-chosen port and prints PORT=<n> first. Modes:
  echo       echo every byte back; prints "CLOSED" when a client connection ends
  greet      send b"hello" and close (the client sees data then EOF)
  reset      accept, then close with SO_LINGER 0 so the client gets a RST
  silent     accept and never send or read (a TLS client's handshake then stalls)
  flood      send endlessly while the client does not read; prints "SENT <total>" every 50 ms
             (a total that stops growing proves TCP flow control stopped the sender)
With --tls CERT KEY the same modes run over TLS.
"""
import argparse
import asyncio
import socket
import ssl
import struct
import loopback


def log(line):
    print(line, flush=True)


async def echo(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    finally:
        log("CLOSED")
        writer.close()


async def greet(reader, writer):
    writer.write(b"hello")
    await writer.drain()
    writer.close()
    log("CLOSED")


async def reset(reader, writer):
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
    log("RESET")


async def silent(reader, writer):
    log("ACCEPTED")
    await asyncio.sleep(3600)


async def flood(reader, writer):
    total = 0
    chunk = b"x" * 65536
    async def report():
        while True:
            log(f"SENT {total}")
            await asyncio.sleep(0.05)
    reporter = asyncio.create_task(report())
    try:
        while True:
            writer.write(chunk)
            total += len(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        reporter.cancel()
        log(f"SENT {total}")
        log("CLOSED")
        writer.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["echo", "greet", "reset", "flood", "silent"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    context = None
    if args.tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls[0], args.tls[1])
        context.set_alpn_protocols(["http/1.1"])
    handler = {"echo": echo, "greet": greet, "reset": reset, "flood": flood, "silent": silent}[args.mode]
    loopback.serve_streams(handler, ssl=context, host=args.host)


if __name__ == "__main__":
    main()
