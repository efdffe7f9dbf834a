"""Server for the soak runs (scripts/soak.sh): aiohttp on 127.0.0.1, free port, prints PORT=<n>.

  /sse   an endless event stream: one event a second (`id: n`, `data: tick n`), for as long as
         the client stays
  /ws    a WebSocket that stays idle until the client closes it

The Socket.IO soak uses bench_sio_server.py (its `echo` event).
"""
import asyncio

from aiohttp import web

import loopback


async def sse(request):
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    n = 0
    try:
        while True:
            n += 1
            await response.write(f"id: {n}\ndata: tick {n}\n\n".encode())
            await asyncio.sleep(1)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    return response


async def ws(request):
    socket = web.WebSocketResponse(heartbeat=None)
    await socket.prepare(request)
    async for _ in socket:
        pass
    return socket


def main():
    app = web.Application()
    app.router.add_get("/sse", sse)
    app.router.add_get("/ws", ws)
    loopback.serve(app, access_log=False)


if __name__ == "__main__":
    main()
