"""sse-starlette server under uvicorn for EventSource loopback tests.

Binds 127.0.0.1 on a free port and prints PORT=<n> first (loopback.serve_asgi).

  /events?count=N         N events (id i, event "tick", data "starlette i"), then the stream ends
  /ping?seconds=S         only keep-alive comments (`: ping - <time>`) every 0.1 s for S seconds,
                          then one event `data: pong`
  /post (POST)            echoes the request body as one event
"""
import asyncio

from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
import loopback


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


app = Starlette(routes=[
    Route("/events", events),
    Route("/ping", ping),
    Route("/post", post, methods=["POST"]),
])


if __name__ == "__main__":
    loopback.serve_asgi(app)
