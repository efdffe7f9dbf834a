"""Socket.IO v5 server for the broadcast soak (python-socketio on aiohttp): many clients, one
broadcast to all of them every interval, heartbeats on.

Binds 127.0.0.1 (port 0 unless --port) and prints PORT=<n> first. Used by scripts/soak.sh's
broadcast run (RealtimeSoak broadcast).

  --ping-interval S     Engine.IO heartbeat interval in seconds (default 10)

Events (namespace "/"):
  clients()                     -> acks the number of connected clients
  broadcast(count, interval_ms) -> acks [], then emits "tick" (seq, sent_ns) to every client
                                   `count` times, `interval_ms` apart (seq from 0; sent_ns is
                                   time.time_ns() just before the emit, for the delivery
                                   latency on the same host); then emits "ticks_done" (count)
"""
import argparse
import asyncio
import time

import loopback
import socketio
from aiohttp import web

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--ping-interval", type=float, default=10)
args = parser.parse_args()

sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*", async_handlers=True,
                           ping_interval=args.ping_interval, ping_timeout=20)
app = web.Application()
sio.attach(app)
connected = set()


@sio.on("connect")
async def connect(sid, environ, auth=None):
    connected.add(sid)


@sio.on("disconnect")
async def disconnect(sid, *reason):
    connected.discard(sid)


@sio.on("clients")
async def clients(sid):
    return len(connected)


async def run_broadcast(count, interval):
    start = time.monotonic()
    for seq in range(count):
        # On a schedule, not "sleep after": a slow emit does not stretch the run.
        delay = start + seq * interval - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        await sio.emit("tick", (seq, time.time_ns()))  # a tuple: two arguments
    await sio.emit("ticks_done", count)


@sio.on("broadcast")
async def broadcast(sid, count, interval_ms):
    asyncio.get_running_loop().create_task(run_broadcast(int(count), int(interval_ms) / 1000))
    return []


loopback.serve(app, args.port, access_log=False)
