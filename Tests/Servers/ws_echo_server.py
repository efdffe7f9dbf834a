"""WebSocket peer for the loopback tests and the benchmark: the real `websockets` 17.4 server.

Binds 127.0.0.1 on a free port and prints PORT=<n>. Paths:
  /echo                      echo every message back (text as text, binary as binary)
  /headers                   first message: JSON of the request headers; then echo.
                             The response carries X-Echo-Test: <value of X-Test>.
  /fragmented?count=N&size=S send one text message in N fragments of S characters, then echo
  /large?size=N              send one binary message of N bytes (byte i = i % 251), then echo
  /close?code=C&reason=R     close right away with code C and reason R
  /ping                      send a ping, wait for its pong, send "pong:ok", then echo
  /extensions                first message: the negotiated Sec-WebSocket-Extensions; then echo
  /sink                      count incoming messages; on the text "end" reply "done:<bytes>"
  /source?count=N&size=S     send N binary messages of S bytes, then the text "end"

Options: --tls CERT KEY (wss), --no-compression (decline permessage-deflate).
"""
import argparse
import asyncio
import json
import ssl
import sys
from urllib.parse import urlsplit, parse_qs

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def handler(ws):
    url = urlsplit(ws.request.path)
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    try:
        if url.path == "/headers":
            await ws.send(json.dumps({name: value for name, value in ws.request.headers.raw_items()}))
        elif url.path == "/fragmented":
            count, size = int(query.get("count", "4")), int(query.get("size", "10"))
            await ws.send([chr(ord("a") + i % 26) * size for i in range(count)])
        elif url.path == "/large":
            size = int(query.get("size", "1000000"))
            await ws.send(bytes(i % 251 for i in range(size)))
        elif url.path == "/close":
            await ws.close(int(query.get("code", "1000")), query.get("reason", ""))
            return
        elif url.path == "/ping":
            waiter = await ws.ping(b"are-you-there")
            await asyncio.wait_for(waiter, 5)
            await ws.send("pong:ok")
        elif url.path == "/extensions":
            await ws.send(ws.response.headers.get("Sec-WebSocket-Extensions", ""))
        elif url.path == "/sink":
            total = 0
            async for message in ws:
                if message == "end":
                    await ws.send(f"done:{total}")
                else:
                    total += len(message)
            return
        elif url.path == "/source":
            count, size = int(query.get("count", "1000")), int(query.get("size", "65536"))
            payload = bytes(size)
            for _ in range(count):
                await ws.send(payload)
            await ws.send("end")
        await echo(ws)
    except ConnectionClosed:
        pass


def process_response(connection, request, response):
    value = request.headers.get("X-Test")
    if value is not None:
        response.headers["X-Echo-Test"] = value
    return response


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--no-compression", action="store_true")
    args = parser.parse_args()
    context = None
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
    async with serve(handler, "127.0.0.1", 0, ssl=context, max_size=64 * 1024 * 1024,
                     compression=None if args.no_compression else "deflate",
                     process_response=process_response, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT={port}", flush=True)
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
