"""HTTP/1.1 peer for the RealtimeHTTP client tests (aiohttp).

Binds 127.0.0.1 on a free port and prints PORT=<n> first. Options:
  --cert FILE --key FILE   serve HTTPS with this certificate
  --keepalive-timeout S    close idle keep-alive connections after S seconds (default 75)
  --log-sni                print `SNI <name>` for each TLS handshake (the client's server name)
Routes:
  /echo            any method: JSON {method, path, query, target (raw), headers, body, peer_port}
  /conn            JSON {peer_port}: which client connection carried the request
  /length?size=N   N bytes (pattern i % 251) with Content-Length
  /chunked?count=N&size=S&delay=MS   N chunks of S bytes, MS ms apart, chunked encoding
  /set-cookie      sets cookies (see handler), /cookies echoes the Cookie field
  /redirect?status=302&to=URL        redirect to URL (absolute or relative)
  /redirect-chain?n=K                K same-origin redirects, then /echo
  /slow            never answers
  /basic-auth/...  any method: 401 with `WWW-Authenticate: Basic realm="swift-realtime"` unless
                   the request carries Basic credentials app:pw; then JSON {user, path}
  /forever?delay=MS  streams 64 KiB chunks endlessly (MS ms apart); /stats reports bytes
                   accepted so far and whether the last write is waiting for the peer (for
                   the latest /forever), and how many /forever requests arrived
"""
import argparse
import base64
import asyncio
import json
import ssl

from aiohttp import web
import loopback

stats = {"forever_sent": 0, "forever_blocked": False, "forever_requests": 0}


def peer_port(request):
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return peer[1] if peer else None


async def echo(request):
    body = await request.read()
    return web.json_response({
        "method": request.method,
        "path": request.path,
        "query": request.query_string,
        "target": request.raw_path,
        "headers": [[k, v] for k, v in request.headers.items()],
        "body": body.decode("latin-1"),
        "peer_port": peer_port(request),
    })


async def basic_auth(request):
    expected = "Basic " + base64.b64encode(b"app:pw").decode("ascii")
    if request.headers.get("Authorization") != expected:
        return web.Response(status=401, text="who are you",
                            headers={"WWW-Authenticate": 'Basic realm="swift-realtime"'})
    return web.json_response({"user": "app", "path": request.path})


async def conn(request):
    return web.json_response({"peer_port": peer_port(request)})


PERIOD = bytes(range(251))


def pattern(size, offset=0):
    """Byte i is (offset + i) % 251."""
    start = offset % 251
    return (PERIOD * (size // 251 + 2))[start:start + size]


async def length(request):
    size = int(request.query.get("size", "1000"))
    return web.Response(body=pattern(size), content_type="application/octet-stream")


async def chunked(request):
    count = int(request.query.get("count", "5"))
    size = int(request.query.get("size", "10"))
    delay = int(request.query.get("delay", "0")) / 1000
    response = web.StreamResponse()
    response.enable_chunked_encoding()
    await response.prepare(request)
    for index in range(count):
        await response.write(pattern(size, index * size))
        if delay:
            await asyncio.sleep(delay)
    await response.write_eof()
    return response


async def set_cookie(request):
    response = web.json_response({"ok": True})
    response.headers.add("Set-Cookie", "session=abc123; Path=/; HttpOnly")
    response.headers.add("Set-Cookie", "theme=dark; Max-Age=3600")
    response.headers.add("Set-Cookie", "gone=x; Max-Age=0")
    response.headers.add("Set-Cookie", "scoped=yes; Path=/cookies/sub")
    response.headers.add("Set-Cookie", "secureonly=1; Secure")
    return response


async def cookies(request):
    return web.json_response({"cookie": request.headers.get("Cookie")})


async def redirect(request):
    status = int(request.query.get("status", "302"))
    target = request.query["to"]
    await request.read()
    return web.Response(status=status, headers={"Location": target}, text="redirecting")


async def redirect_chain(request):
    remaining = int(request.query.get("n", "1"))
    target = "/echo" if remaining <= 1 else f"/redirect-chain?n={remaining - 1}"
    return web.Response(status=302, headers={"Location": target})


async def slow(request):
    await asyncio.sleep(3600)
    return web.Response(text="late")


async def forever(request):
    response = web.StreamResponse()
    response.enable_chunked_encoding()
    await response.prepare(request)
    chunk = pattern(64 * 1024)
    delay = int(request.query.get("delay", "0")) / 1000
    stats["forever_sent"] = 0
    stats["forever_requests"] += 1
    try:
        while True:
            stats["forever_blocked"] = True
            await response.write(chunk)  # waits while the transport's buffer is full
            stats["forever_blocked"] = False
            stats["forever_sent"] += len(chunk)
            if delay:
                await asyncio.sleep(delay)
    except (ConnectionError, asyncio.CancelledError):
        pass
    return response


async def report(request):
    return web.json_response({"sent": stats["forever_sent"], "blocked": stats["forever_blocked"],
                              "requests": stats["forever_requests"]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--keepalive-timeout", type=float, default=75.0)
    parser.add_argument("--log-sni", action="store_true")
    args = parser.parse_args()

    app = web.Application()
    app.router.add_route("*", "/echo", echo)
    app.router.add_get("/conn", conn)
    app.router.add_route("*", "/basic-auth/{tail:.*}", basic_auth)
    app.router.add_get("/length", length)
    app.router.add_get("/chunked", chunked)
    app.router.add_get("/set-cookie", set_cookie)
    app.router.add_get("/cookies", cookies)
    app.router.add_get("/cookies/sub", cookies)
    app.router.add_route("*", "/redirect", redirect)
    app.router.add_get("/redirect-chain", redirect_chain)
    app.router.add_get("/slow", slow)
    app.router.add_get("/forever", forever)
    app.router.add_get("/stats", report)

    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
        if args.log_sni:
            context.sni_callback = lambda sock, name, ctx: print(f"SNI {name or '-'}", flush=True)

    loopback.serve(app, ssl_context=context, access_log=False, shutdown_timeout=0.1,
                   keepalive_timeout=args.keepalive_timeout)


if __name__ == "__main__":
    main()
