"""aiohttp-sse over TLS for EventSource's trust tests (127.0.0.1, free port, prints PORT=<n>).

usage: sse_tls_server.py CERT.pem KEY.pem

  /events?count=N    N events (id i, event "tick", data "tls i"), then the stream ends;
                     prints `GET /events` for each request that got past the handshake
"""
import ssl
import sys

from aiohttp import web
from aiohttp_sse import sse_response
import loopback


async def events(request):
    print("GET /events", flush=True)
    count = int(request.query.get("count", "2"))
    async with sse_response(request) as response:
        for i in range(1, count + 1):
            await response.send(f"tls {i}", id=str(i), event="tick")
    return response


def main():
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    app = web.Application()
    app.router.add_get("/events", events)
    loopback.serve(app, ssl_context=context)


if __name__ == "__main__":
    main()
