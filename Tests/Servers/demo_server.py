"""The bundled server of `make demo` (python-socketio 5.18 on aiohttp, Socket.IO v5).

scripts/demo.sh starts it; it binds 127.0.0.1 on --port (0: the kernel picks) and prints
PORT=<n> first.

Events (the SocketIOConcurrency seed's flow):
  message:send(payload)     -> acks {"ok": true, "id": n} and broadcasts "message:new"
                               {"id": n, "message": payload} to every client (sender included)
  message:confirm(payload)  -> acks {"confirmed": true, "echo": payload}
"""
import argparse
import asyncio
import itertools
import sys

import socketio
from aiohttp import web

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()

sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*")
app = web.Application()
sio.attach(app)
message_ids = itertools.count(1)


@sio.on("message:send")
async def message_send(sid, payload=None):
    message_id = next(message_ids)
    await sio.emit("message:new", {"id": message_id, "message": payload})
    return {"ok": True, "id": message_id}


@sio.on("message:confirm")
async def message_confirm(sid, payload=None):
    return {"confirmed": True, "echo": payload}


async def main():
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"PORT={port}", flush=True)
    while True:
        await asyncio.sleep(3600)


try:
    asyncio.run(main())
except KeyboardInterrupt:
    sys.exit(0)
