"""aiohttp-sse server for EventSource loopback tests (127.0.0.1, free port, prints PORT=<n>).

  /events?count=N    N events (id i, event "tick", data "aiohttp i"), then the stream ends
  /resume            events after the request's Last-Event-ID (ids 1..5), then the stream ends;
                     prints `LAST-EVENT-ID <value or ->`
  /multiline         one event whose data has three lines
  /headers           one event whose data is JSON of the request's Accept, Cache-Control and
                     Last-Event-ID headers (null when absent), then the stream ends
  /hold              `: ping` comments every 50 ms; the first event carries `retry: 50`; two
                     events after the request's Last-Event-ID (ids 1, 2, then 3, 4, ...), then
                     the stream stays open until the client disconnects; prints
                     `LAST-EVENT-ID <value or ->` and `DISCONNECTED /hold`
"""

import asyncio
import json

from aiohttp import web
from aiohttp_sse import sse_response
import loopback


async def events(request):
    count = int(request.query.get("count", "3"))
    async with sse_response(request) as response:
        for i in range(1, count + 1):
            await response.send(f"aiohttp {i}", id=str(i), event="tick")
    return response


async def resume(request):
    last = request.headers.get("Last-Event-ID")
    print(f"LAST-EVENT-ID {last or '-'}", flush=True)
    start = int(last) + 1 if last and last.isdigit() else 1
    async with sse_response(request) as response:
        for i in range(start, 6):
            await response.send(f"resumed {i}", id=str(i))
    return response


async def multiline(request):
    async with sse_response(request) as response:
        await response.send("line 1\nline 2\nline 3")
    return response


async def headers(request):
    payload = {name: request.headers.get(name) for name in ("Accept", "Cache-Control", "Last-Event-ID")}
    async with sse_response(request) as response:
        await response.send(json.dumps(payload))
    return response


async def hold(request):
    last = request.headers.get("Last-Event-ID")
    print(f"LAST-EVENT-ID {last or '-'}", flush=True)
    start = int(last) + 1 if last and last.isdigit() else 1
    try:
        async with sse_response(request, ping_interval=0.05) as response:
            await response.send(f"held {start}", id=str(start), retry=50)
            await response.send(f"held {start + 1}", id=str(start + 1))
            # aiohttp does not cancel a handler when its client goes away: watch the transport.
            while request.transport is not None and not request.transport.is_closing():
                await asyncio.sleep(0.05)
    finally:
        print("DISCONNECTED /hold", flush=True)


def main():
    app = web.Application()
    app.router.add_get("/events", events)
    app.router.add_get("/resume", resume)
    app.router.add_get("/multiline", multiline)
    app.router.add_get("/headers", headers)
    app.router.add_get("/hold", hold)
    loopback.serve(app)


if __name__ == "__main__":
    main()
