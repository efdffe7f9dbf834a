"""A hand-written, misbehaving Engine.IO v4 polling server for SocketIOTests.

Binds 127.0.0.1 port 0 and prints PORT=<n> first. Paths (all polling only):
  /bad-handshake/   the handshake body is not JSON ("0{oops")
  /bad-packets/     a valid session whose next poll carries malformed socket.io packets
                    ("4garbage", an event without a name, a binary event announcing 1
                    attachment with placeholder 9, a `2` event with broken JSON) followed by
                    a valid 42["ok"]; the CONNECT is answered with 40{"sid":"s"}
  /http-error/      every request answers 500
  /engine-error/    a valid session (polling) whose CONNECT is answered, then the next poll
                    carries an Engine.IO server error object instead of a payload:
                    {"code":1,"message":"Session ID unknown"}
  /engine-error-ws/ the same over a WebSocket (transport=websocket, no polling): the
                    handshake, then after the CONNECT {"code":3,"message":"Bad request"}
"""
import asyncio

from aiohttp import web
import loopback

SEP = "\x1e"
HANDSHAKE = '0{"sid":"hostile","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}'
queues = {}


async def bad_handshake(request):
    return web.Response(text="0{oops")


async def http_error(request):
    return web.Response(status=500, text="boom")


async def bad_packets(request):
    sid = request.query.get("sid")
    if request.method == "GET" and sid is None:
        queues["hostile"] = asyncio.Queue()
        return web.Response(text=HANDSHAKE)
    queue = queues.get("hostile")
    if request.method == "POST":
        body = await request.text()
        for packet in body.split(SEP):
            if packet.startswith("40"):
                await queue.put('40{"sid":"s"}')
                await queue.put(SEP.join([
                    "4garbage",
                    "42[1]",
                    '451-["b",{"_placeholder":true,"num":9}]',
                    '42["broken",',
                    '42["ok"]',
                ]))
        return web.Response(text="ok")
    try:
        item = await asyncio.wait_for(queue.get(), timeout=20)
    except asyncio.TimeoutError:
        return web.Response(text="6")
    return web.Response(text=item)


async def engine_error(request):
    if request.query.get("transport") == "websocket":
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(HANDSHAKE)
        async for message in ws:
            if message.type == web.WSMsgType.TEXT and message.data.startswith("40"):
                await ws.send_str('40{"sid":"s"}')
                await ws.send_str('{"code":3,"message":"Bad request"}')
        return ws
    sid = request.query.get("sid")
    if request.method == "GET" and sid is None:
        queues["engine-error"] = asyncio.Queue()
        return web.Response(text=HANDSHAKE)
    queue = queues["engine-error"]
    if request.method == "POST":
        body = await request.text()
        if any(packet.startswith("40") for packet in body.split(SEP)):
            await queue.put('40{"sid":"s"}')
            await queue.put('{"code":1,"message":"Session ID unknown"}')
        return web.Response(text="ok")
    try:
        item = await asyncio.wait_for(queue.get(), timeout=20)
    except asyncio.TimeoutError:
        return web.Response(text="6")
    return web.Response(text=item)


app = web.Application()
app.router.add_route("GET", "/bad-handshake/socket.io/", bad_handshake)
app.router.add_route("*", "/http-error/socket.io/", http_error)
app.router.add_route("*", "/bad-packets/socket.io/", bad_packets)
app.router.add_route("*", "/engine-error/socket.io/", engine_error)
app.router.add_route("*", "/engine-error-ws/socket.io/", engine_error)
loopback.serve(app)
