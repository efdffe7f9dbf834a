"""A compressing SSE server for the compressed-response tests (aiohttp, 127.0.0.1, prints PORT=<n>).

It compresses the stream itself with zlib and Z_SYNC_FLUSH after every event, as a compressing
reverse proxy does, and sends the next event only after the client asked for it:

  /stream?coding=gzip|deflate|raw&count=N   N events; the coding is used only when the request's
                 Accept-Encoding names it (raw = raw DEFLATE sent as "deflate"); prints
                 `ACCEPT-ENCODING <value or ->`; after each event waits (10 s at most) for /next,
                 printing `SENT <i>` before and `TIMEOUT <i>` if /next never came
  /next          lets the stream send its next event
  /bomb          a gzip body of 64 MiB of zeros (about 64 KiB compressed)
"""
import asyncio
import zlib

from aiohttp import web
import loopback

go = asyncio.Queue()
WBITS = {"gzip": 31, "deflate": 15, "raw": -15}


async def stream(request):
    coding = request.query.get("coding", "gzip")
    count = int(request.query.get("count", "3"))
    accept = request.headers.get("Accept-Encoding")
    print(f"ACCEPT-ENCODING {accept or '-'}", flush=True)
    name = "gzip" if coding == "gzip" else "deflate"
    compressed = accept is not None and name in accept
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    if compressed:
        response.headers["Content-Encoding"] = name
    response.enable_chunked_encoding()
    await response.prepare(request)
    compressor = zlib.compressobj(6, zlib.DEFLATED, WBITS[coding])
    while not go.empty():
        go.get_nowait()
    for i in range(1, count + 1):
        data = f"id: {i}\nevent: tick\ndata: compressed event {i} " + "x" * 200 + "\n\n"
        payload = data.encode()
        if compressed:
            payload = compressor.compress(payload) + compressor.flush(zlib.Z_SYNC_FLUSH)
        await response.write(payload)
        print(f"SENT {i}", flush=True)
        if i < count:
            try:
                await asyncio.wait_for(go.get(), 10)
            except asyncio.TimeoutError:
                print(f"TIMEOUT {i}", flush=True)
    if compressed:
        await response.write(compressor.flush(zlib.Z_FINISH))
    await response.write_eof()
    return response


async def next_event(request):
    await go.put(1)
    return web.Response(text="ok")


async def bomb(request):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    body = compressor.compress(b"\0" * (64 << 20)) + compressor.flush()
    return web.Response(body=body, headers={"Content-Encoding": "gzip", "Content-Type": "application/octet-stream"})


def main():
    app = web.Application()
    app.router.add_get("/stream", stream)
    app.router.add_get("/next", next_event)
    app.router.add_get("/bomb", bomb)
    loopback.serve(app)


if __name__ == "__main__":
    main()
