"""aiohttp-sse server for EventSource loopback tests (127.0.0.1, free port, prints PORT=<n>).

  /events?count=N    N events (id i, event "tick", data "aiohttp i"), then the stream ends
  /resume            events after the request's Last-Event-ID (ids 1..5), then the stream ends;
                     prints `LAST-EVENT-ID <value or ->`
  /multiline         one event whose data has three lines
"""

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


def main():
    app = web.Application()
    app.router.add_get("/events", events)
    app.router.add_get("/resume", resume)
    app.router.add_get("/multiline", multiline)
    loopback.serve(app)


if __name__ == "__main__":
    main()
