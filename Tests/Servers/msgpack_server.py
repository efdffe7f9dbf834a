"""python-socketio 5.18 with serializer='msgpack' (socket.io-msgpack-parser's format), on aiohttp,
for the `.parser(.msgpack)` loopback tests.

Binds 127.0.0.1 (port 0) and prints PORT=<n> first.

Connect: emits "welcome" with {"sid": sid, "bytes": b"\\x00\\x01\\x02"} to the new client.

Events:
  echo(*args)          -> acks the arguments back (binary stays bytes)
  kinds(*args)         -> acks the Python type name of each argument ("bytes", "dict", ...)
  ask_client(*args)    -> emits "question" with the arguments and an ack request to this client,
                          then emits "answered" with {"answer": what the client acked}
"""
import socketio
from aiohttp import web

import loopback

sio = socketio.AsyncServer(async_mode="aiohttp", serializer="msgpack", cors_allowed_origins="*")
app = web.Application()
sio.attach(app)


@sio.on("connect")
async def connect(sid, environ, auth):
    await sio.emit("welcome", {"sid": sid, "bytes": b"\x00\x01\x02"}, to=sid)


@sio.on("echo")
async def echo(sid, *data):
    return data


@sio.on("kinds")
async def kinds(sid, *data):
    return [type(item).__name__ for item in data]


@sio.on("ask_client")
async def ask_client(sid, *data):
    answer = await sio.call("question", data[0] if len(data) == 1 else list(data), to=sid, timeout=5)
    await sio.emit("answered", {"answer": answer}, to=sid)


if __name__ == "__main__":
    loopback.serve(app)
