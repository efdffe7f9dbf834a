"""Socket.IO v5 server for SocketIOConcurrencyTests (python-socketio 5.18 on aiohttp).

Binds 127.0.0.1 (port 0 unless --port) and prints PORT=<n> first.

Connect: auth {"token": "bad"} is refused with CONNECT_ERROR "unauthorized".

Events:
  message:send(payload)     -> acks {"ok": true, "id": n} and broadcasts "message:new"
                               {"id": n, "message": payload} to every client (sender included)
  message:confirm(payload)  -> acks {"confirmed": true, "echo": payload}
  types()                   -> acks true, 1, 1.5, "s", None, [false, 0], b"\x01\x02"
  never_ack(*args)          -> never acks
  kick()                    -> disconnects this client from the namespace
  kick_later(delay)         -> acks at once, then disconnects this client after delay seconds
  auth_seen()               -> acks the auth payload of this connection's CONNECT
  drop_transport()          -> acks, then closes this client's Engine.IO session (a transport loss)
  codable:echo(*args)       -> emits the arguments back as "codable:new"; acks them with the
                               paths of the values that arrived as binary attachments
  retry:flaky(key)          -> records the delivery; the first delivery of a key acks only after
                               3 s (too late for a client with a shorter ack timeout), later ones
                               ack "ok:<key>" at once
  retry:never(key)          -> records the delivery, never acks
  retry:deliveries()        -> acks the keys delivered so far by retry:flaky / retry:never, in order
"""
import argparse
import asyncio
import itertools

import loopback
import socketio
from aiohttp import web

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()

sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*")
app = web.Application()
sio.attach(app)
message_ids = itertools.count(1)


auths = {}


@sio.on("connect")
async def connect(sid, environ, auth):
    if isinstance(auth, dict) and auth.get("token") == "bad":
        raise socketio.exceptions.ConnectionRefusedError("unauthorized")
    auths[sid] = auth


@sio.on("auth_seen")
async def auth_seen(sid, *data):
    return auths.get(sid)


@sio.on("drop_transport")
async def drop_transport(sid, *data):
    eio_sid = sio.manager.eio_sid_from_sid(sid, "/")

    async def later():
        await asyncio.sleep(0.05)
        await sio.eio.disconnect(eio_sid)

    asyncio.get_running_loop().create_task(later())
    return "dropping"


@sio.on("message:send")
async def message_send(sid, payload=None):
    message_id = next(message_ids)
    await sio.emit("message:new", {"id": message_id, "message": payload})
    return {"ok": True, "id": message_id}


@sio.on("message:confirm")
async def message_confirm(sid, payload=None):
    return {"confirmed": True, "echo": payload}


@sio.on("types")
async def types(sid, *data):
    return True, 1, 1.5, "s", None, [False, 0], b"\x01\x02"


@sio.on("codable:echo")
async def codable_echo(sid, *data):
    """Emits the arguments back as `codable:new` and acks them with the paths of every value
    that arrived as a binary attachment (bytes), so a test sees Data was not sent as base64."""

    def binary_paths(value, path):
        if isinstance(value, bytes):
            return [path]
        if isinstance(value, dict):
            return [p for key, item in value.items() for p in binary_paths(item, f"{path}.{key}")]
        if isinstance(value, list):
            return [p for index, item in enumerate(value) for p in binary_paths(item, f"{path}[{index}]")]
        return []

    await sio.emit("codable:new", data[0] if len(data) == 1 else list(data), to=sid)
    return {"echo": list(data), "binary": sorted(p for i, item in enumerate(data) for p in binary_paths(item, f"${i}"))}


deliveries = []


@sio.on("retry:flaky")
async def retry_flaky(sid, key=None):
    first = key not in deliveries
    deliveries.append(key)
    if first:
        await asyncio.sleep(3)
    return f"ok:{key}"


@sio.on("retry:never")
async def retry_never(sid, key=None):
    deliveries.append(key)
    await asyncio.sleep(3600)


@sio.on("retry:deliveries")
async def retry_deliveries(sid, *data):
    return deliveries


@sio.on("never_ack")
async def never_ack(sid, *data):
    await asyncio.sleep(3600)


@sio.on("kick")
async def kick(sid, *data):
    await sio.disconnect(sid)


@sio.on("kick_later")
async def kick_later(sid, delay=0.1):
    async def later():
        await asyncio.sleep(delay)
        await sio.disconnect(sid)
    asyncio.get_running_loop().create_task(later())
    return "scheduled"


loopback.serve(app, args.port)
