"""Socket.IO v5 test server for SocketIOTests (python-socketio 5.18 on aiohttp, or with --asgi
as an ASGI app under uvicorn).

Binds 127.0.0.1 (port 0 unless --port) and prints PORT=<n> first.

Namespaces:
  "/"       accepts everyone except auth {"token": "bad"} (CONNECT_ERROR "unauthorized"
            with data {"reason": "bad token"}); emits "welcome" from its connect handler,
            then, for auth {"burst": n}, "burst" with 0..<n (all before its CONNECT packet).
  "/admin"  requires auth {"token": "admin-secret"}, else CONNECT_ERROR "forbidden"
            with data {"need": "admin"}.

Events (both namespaces):
  echo(*args)          -> emits "echo" with the same args and acks them
  ack_me(*args)        -> acks the args
  binary_ack(*args)    -> acks [b"\x00\x01\x02", {"nested": b"\xff"}]
  never_ack(*args)     -> never acks
  ask_client(*args)    -> emits "server_ask" with args and a callback; the client's ack
                          is emitted back as "client_answered"
  kick()               -> the server disconnects this client from the namespace
  shout(*args)         -> emits "shouted" with the args to every client of the namespace
  flood(n)             -> emits "flood_item" with 0..<n to the caller, as fast as it can
  seq(n)               -> records n; seq_result() acks the recorded list and clears it
  auth_seen()          -> acks the auth payload the namespace saw on connect
  environ_seen()       -> acks {"cookie", "x_client", "query"} of the connect request
  query_seen()         -> acks the connect request's query as the connect handler decodes
                          it: urllib.parse.parse_qs(QUERY_STRING), {name: [values]}
  sticky_report()      -> acks {"with": n, "without": m}: how many engine.io requests that
                          carried a sid also carried the "sticky=node-1" cookie this server
                          sets on every polling response
  connect_counts()     -> acks {"handshakes": h, "/": r, "/admin": a} and resets them: engine.io
                          handshakes (requests without a sid; aiohttp only) and accepted
                          namespace CONNECTs since the last call
"""
import argparse
import asyncio
import ssl
import urllib.parse

import loopback
import socketio
from aiohttp import web

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--ping-interval", type=float, default=25)
parser.add_argument("--ping-timeout", type=float, default=20)
parser.add_argument("--cert", default=None, help="PEM certificate chain: serve HTTPS/WSS")
parser.add_argument("--key", default=None)
parser.add_argument("--asgi", action="store_true", help="serve socketio.ASGIApp under uvicorn")
args = parser.parse_args()

sio = socketio.AsyncServer(async_mode="asgi" if args.asgi else "aiohttp", cors_allowed_origins="*",
                           ping_interval=args.ping_interval, ping_timeout=args.ping_timeout)
request_log = []
connect_counts = {"handshakes": 0, "/": 0, "/admin": 0}


@web.middleware
async def sticky_cookie(request, handler):
    engine_request = request.path.startswith("/socket.io")
    if engine_request and "sid" in request.query:
        request_log.append("sticky=node-1" in request.headers.get("Cookie", ""))
    elif engine_request:
        connect_counts["handshakes"] += 1
    response = await handler(request)
    if engine_request and not getattr(response, "prepared", False):
        response.set_cookie("sticky", "node-1")
    return response


def sticky_cookie_asgi(inner):
    """The ASGI form of `sticky_cookie`: records whether engine.io requests with a sid carry
    the cookie, and sets it on every HTTP response of the engine.io path."""
    async def app(scope, receive, send):
        if scope["type"] not in ("http", "websocket") or not scope["path"].startswith("/socket.io"):
            return await inner(scope, receive, send)
        if b"sid=" in scope.get("query_string", b""):
            cookie = b"".join(value for name, value in scope["headers"] if name == b"cookie")
            request_log.append(b"sticky=node-1" in cookie)
        if scope["type"] == "websocket":
            return await inner(scope, receive, send)

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [(b"set-cookie", b"sticky=node-1; Path=/")]
            await send(message)
        return await inner(scope, receive, send_with_cookie)
    return app


if args.asgi:
    app = sticky_cookie_asgi(socketio.ASGIApp(sio))
else:
    app = web.Application(middlewares=[sticky_cookie])
    sio.attach(app)
environs = {}

sequences = {}
auth_payloads = {}


def register(namespace):
    @sio.on("echo", namespace=namespace)
    async def echo(sid, *data):
        await sio.emit("echo", tuple(data), to=sid, namespace=namespace)
        return data

    @sio.on("ack_me", namespace=namespace)
    async def ack_me(sid, *data):
        return data

    @sio.on("binary_ack", namespace=namespace)
    async def binary_ack(sid, *data):
        return b"\x00\x01\x02", {"nested": b"\xff"}

    @sio.on("never_ack", namespace=namespace)
    async def never_ack(sid, *data):
        # Returning would send an (empty) ack; never returning sends none.
        await asyncio.sleep(3600)

    @sio.on("ask_client", namespace=namespace)
    async def ask_client(sid, *data):
        async def answered(*answer):
            await sio.emit("client_answered", tuple(answer), to=sid, namespace=namespace)
        await sio.emit("server_ask", tuple(data), to=sid, namespace=namespace, callback=answered)

    @sio.on("kick", namespace=namespace)
    async def kick(sid, *data):
        await sio.disconnect(sid, namespace=namespace)

    @sio.on("seq", namespace=namespace)
    async def seq(sid, n):
        sequences.setdefault((sid, namespace), []).append(n)

    @sio.on("flood", namespace=namespace)
    async def flood(sid, n):
        # n events to the caller as fast as the server can queue them (backpressure tests).
        for index in range(int(n)):
            await sio.emit("flood_item", index, to=sid, namespace=namespace)

    @sio.on("blob", namespace=namespace)
    async def blob(sid, n):
        # One event carrying a string of n bytes, built here (the copy-count tests).
        await sio.emit("blob", "b" * int(n), to=sid, namespace=namespace)

    @sio.on("shout", namespace=namespace)
    async def shout(sid, *data):
        await sio.emit("shouted", data, namespace=namespace)

    @sio.on("seq_result", namespace=namespace)
    async def seq_result(sid, *data):
        return sequences.pop((sid, namespace), [])

    @sio.on("environ_seen", namespace=namespace)
    async def environ_seen(sid, *data):
        return environs.get((sid, namespace))

    @sio.on("query_seen", namespace=namespace)
    async def query_seen(sid, *data):
        seen = environs.get((sid, namespace))
        return urllib.parse.parse_qs(seen["query"], keep_blank_values=True) if seen else None

    @sio.on("sticky_report", namespace=namespace)
    async def sticky_report(sid, *data):
        return {"with": sum(1 for x in request_log if x), "without": sum(1 for x in request_log if not x)}

    @sio.on("connect_counts", namespace=namespace)
    async def connect_counts_seen(sid, *data):
        counts = dict(connect_counts)
        for key in connect_counts:
            connect_counts[key] = 0
        return counts

    @sio.on("auth_seen", namespace=namespace)
    async def auth_seen(sid, *data):
        return auth_payloads.get((sid, namespace))


@sio.on("connect", namespace="/")
async def connect_root(sid, environ, auth):
    if isinstance(auth, dict) and auth.get("token") == "bad":
        raise socketio.exceptions.ConnectionRefusedError("unauthorized", {"reason": "bad token"})
    auth_payloads[(sid, "/")] = auth
    connect_counts["/"] += 1
    environs[(sid, "/")] = {"cookie": environ.get("HTTP_COOKIE", ""),
                            "x_client": environ.get("HTTP_X_CLIENT", ""),
                            "query": environ.get("QUERY_STRING", "")}
    await sio.emit("welcome", {"sid": sid}, to=sid, namespace="/")
    burst = auth.get("burst", 0) if isinstance(auth, dict) else 0
    for index in range(burst if isinstance(burst, int) else 0):
        await sio.emit("burst", index, to=sid, namespace="/")


@sio.on("connect", namespace="/admin")
async def connect_admin(sid, environ, auth):
    if not isinstance(auth, dict) or auth.get("token") != "admin-secret":
        raise socketio.exceptions.ConnectionRefusedError("forbidden", {"need": "admin"})
    auth_payloads[(sid, "/admin")] = auth
    connect_counts["/admin"] += 1


register("/")
register("/admin")


ssl_context = None
if args.cert:
    ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ssl_context.load_cert_chain(args.cert, args.key)
if args.asgi:
    loopback.serve_asgi(app, args.port, certfile=args.cert, keyfile=args.key)
else:
    loopback.serve(app, args.port, ssl_context=ssl_context)
