"""Socket.IO 2.x test server (python-socketio 4.6 / python-engineio 3.14, Engine.IO 3) for the
`.version(.two)` loopback tests. Runs from .venv-sio2 (scripts/bootstrap.sh).

Binds 127.0.0.1 (port 0 unless --port), prints PORT=<n> first, exits when orphaned; with
--cert/--key it serves HTTPS/WSS.

Namespaces "/" and "/admin" (2.x has no auth payload: every client is accepted):
  on connect     -> emits "welcome" {"sid", "namespace"}
  echo(*args)    -> emits "echo" with the same args and acks them
  binary_ack()   -> acks [b"\x00\x01\x02", {"nested": b"\xff"}]
  ping_stats()   -> acks {"count", "max_gap"}: Engine.IO pings received from clients and
                    the longest gap between two in seconds
  kick()         -> the server disconnects this client from the namespace
Namespaces that refuse every client, so the server sends its ERROR packet (2.x sends one
for a namespace other than "/"):
  "/refused"        -> 4/refused,"not allowed"
  "/refused-object" -> 4/refused-object,{"reason":"banned"}
  "/refused-multi"  -> 4/refused-multi,["a",1]
  "/refused-empty"  -> 4/refused-empty            (the connect handler returns False)
On "/" the server prints "CONNECT /<ns>" and "DISCONNECT /<ns>" lines for the tests.
"""
import argparse
import asyncio
import ssl

import socketio_v4 as socketio
import time
from aiohttp import web
from engineio_v3 import asyncio_socket, packet as engine_packet
import loopback

# python-socketio 4.6's AsyncManager.emit passes coroutines to asyncio.wait, which Python 3.11
# forbids ("Passing coroutines is forbidden"): wrap them in tasks for this process.
_asyncio_wait = asyncio.wait


async def _wait_accepting_coroutines(fs, *wait_args, **wait_kwargs):
    return await _asyncio_wait([asyncio.ensure_future(f) for f in fs], *wait_args, **wait_kwargs)


asyncio.wait = _wait_accepting_coroutines

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--ping-interval", type=float, default=25)
parser.add_argument("--ping-timeout", type=float, default=20)
parser.add_argument("--ping-grace", type=float, default=5,
                    help="extra seconds a polling client may go without pinging")
parser.add_argument("--cert", default=None, help="PEM certificate chain: serve HTTPS/WSS")
parser.add_argument("--key", default=None)
args = parser.parse_args()

# Engine.IO 3: the client pings every pingInterval. The server closes a WebSocket that sends
# nothing for ping_timeout, and a polling session whose last ping is older than
# ping_interval + grace.
sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*",
                           ping_interval=(args.ping_interval, args.ping_grace),
                           ping_timeout=args.ping_timeout)
app = web.Application()
sio.attach(app)

# When each Engine.IO PING from a client arrived (monotonic seconds), for ping_stats().
ping_times = []
_receive = asyncio_socket.AsyncSocket.receive


async def _recording_receive(self, pkt):
    if pkt.packet_type == engine_packet.PING:
        ping_times.append(time.monotonic())
    return await _receive(self, pkt)


asyncio_socket.AsyncSocket.receive = _recording_receive


def register(namespace):
    @sio.on("connect", namespace=namespace)
    async def connect(sid, environ):
        print(f"CONNECT {namespace}", flush=True)
        await sio.emit("welcome", {"sid": sid, "namespace": namespace}, room=sid, namespace=namespace)

    @sio.on("disconnect", namespace=namespace)
    async def disconnect(sid):
        print(f"DISCONNECT {namespace}", flush=True)

    @sio.on("echo", namespace=namespace)
    async def echo(sid, *data):
        await sio.emit("echo", tuple(data), room=sid, namespace=namespace)
        return data

    @sio.on("binary_ack", namespace=namespace)
    async def binary_ack(sid, *data):
        return b"\x00\x01\x02", {"nested": b"\xff"}

    @sio.on("ping_stats", namespace=namespace)
    async def ping_stats(sid, *data):
        gaps = [b - a for a, b in zip(ping_times, ping_times[1:])]
        return {"count": len(ping_times), "max_gap": max(gaps) if gaps else None}

    @sio.on("kick", namespace=namespace)
    async def kick(sid, *data):
        await sio.disconnect(sid, namespace=namespace)


register("/")
register("/admin")

refusals = {"/refused": ("not allowed",), "/refused-object": ({"reason": "banned"},),
            "/refused-multi": ("a", 1), "/refused-empty": None}


def refuse(namespace, reason):
    @sio.on("connect", namespace=namespace)
    async def connect(sid, environ):
        if reason is None:
            return False
        raise socketio.exceptions.ConnectionRefusedError(*reason)


for refused_namespace, refusal in refusals.items():
    refuse(refused_namespace, refusal)


ssl_context = None
if args.cert:
    ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ssl_context.load_cert_chain(args.cert, args.key)
loopback.serve(app, args.port, ssl_context=ssl_context)
