"""sse-starlette server under uvicorn for EventSource loopback tests.

Binds 127.0.0.1 port 0 itself and prints the real port as PORT=<n>.

  /events?count=N         N events (id i, event "tick", data "starlette i"), then the stream ends
  /ping?seconds=S         only keep-alive comments (`: ping - <time>`) every 0.1 s for S seconds,
                          then one event `data: pong`
  /post (POST)            echoes the request body as one event
"""
import asyncio
import socket
import sys

import uvicorn
from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from loopback import exit_when_orphaned


async def events(request: Request):
    count = int(request.query_params.get("count", "3"))

    async def generate():
        for i in range(1, count + 1):
            yield ServerSentEvent(data=f"starlette {i}", id=str(i), event="tick")

    return EventSourceResponse(generate())


async def ping(request: Request):
    seconds = float(request.query_params.get("seconds", "1"))

    async def generate():
        await asyncio.sleep(seconds)
        yield ServerSentEvent(data="pong")

    return EventSourceResponse(generate(), ping=0.1)


async def post(request: Request):
    body = (await request.body()).decode("utf-8", "replace")

    async def generate():
        yield ServerSentEvent(data=body, event="echo")

    return EventSourceResponse(generate())


async def serve(server, sock):
    asyncio.get_running_loop().create_task(exit_when_orphaned())
    await server.serve(sockets=[sock])


app = Starlette(routes=[
    Route("/events", events),
    Route("/ping", ping),
    Route("/post", post, methods=["POST"]),
])


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT={sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    asyncio.run(serve(server, sock))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
