"""Socket.IO v5 server for the SocketIO benchmark (python-socketio 5.18 on aiohttp).

Binds 127.0.0.1 (port 0 unless --port) and prints PORT=<n> first. Used by
scripts/bench-socketio.sh for both the Swift client (SocketIOBenchmark) and python-socketio's
AsyncClient (bench_sio_python_client.py), so both measure against the same server.

Events (namespace "/"):
  echo(*args)        -> acks its arguments unchanged (round-trip measurement)
  sink(*args)        -> counts the event for this connection; no ack (fire-and-forget)
  sink_start(n)      -> resets this connection's count, sets the target to n, acks [];
                        when the count reaches n the server emits "sink_done" with the count
  sink_count()       -> acks this connection's count
"""
import argparse

import loopback
import socketio
from aiohttp import web
from engineio import payload

# python-engineio's server refuses an HTTP long-polling POST that carries more than 16 packets
# ("Too many packets in payload"), and python-socketio's own AsyncClient puts every queued packet
# into one POST: a burst of fire-and-forget emits over polling would fail. Lift the limit so the
# Python reference client can be measured at all (the Swift client sends at most 16 per POST).
payload.Payload.max_decode_packets = 1_000_000

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()

# async_handlers=False: events of one connection are handled in arrival order, inline, so the
# server does not spawn a task per event (the cheapest and most predictable server path).
sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*", async_handlers=False,
                           max_http_buffer_size=10_000_000)
app = web.Application()
sio.attach(app)

counts = {}
targets = {}


@sio.on("echo")
async def echo(sid, *data):
    return data


@sio.on("sink")
async def sink(sid, *data):
    count = counts.get(sid, 0) + 1
    counts[sid] = count
    if count == targets.get(sid):
        await sio.emit("sink_done", count, to=sid)


@sio.on("sink_start")
async def sink_start(sid, n):
    counts[sid] = 0
    targets[sid] = int(n)
    return ()


@sio.on("sink_count")
async def sink_count(sid, *data):
    return counts.get(sid, 0)


@sio.on("disconnect")
async def disconnect(sid, *reason):
    counts.pop(sid, None)
    targets.pop(sid, None)


loopback.serve(app, args.port, access_log=False)
