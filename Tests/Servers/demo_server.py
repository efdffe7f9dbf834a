"""The bundled server of `make demo` (python-socketio 5.18 on aiohttp, Socket.IO v5).

scripts/demo.sh starts it; it binds 127.0.0.1 on --port (0: the kernel picks) and prints
PORT=<n> first.

Events (the SocketIOConcurrency seed's flow):
  message:send(payload)     -> acks {"ok": true, "id": n} and broadcasts "message:new"
                               {"id": n, "message": payload} to every client (sender included)
  message:confirm(payload)  -> acks {"confirmed": true, "echo": payload}

Server-Sent Events (aiohttp-sse), for the EventSource part of the demo:
  GET /events?count=N       N events `tick` with ids 1..N and data "tick i", then ends
"""
import argparse
import asyncio
import itertools

import loopback
import socketio
from aiohttp import web
from aiohttp_sse import sse_response

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


async def events(request):
    count = int(request.query.get("count", "3"))
    async with sse_response(request) as response:
        for i in range(1, count + 1):
            await response.send(f"tick {i}", id=str(i), event="tick")
            await asyncio.sleep(0.05)
    return response


app.router.add_get("/events", events)


loopback.serve(app, args.port)
