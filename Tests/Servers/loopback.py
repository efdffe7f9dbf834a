"""What every test server here shares: serve on loopback, announce the port, run until stopped.

Each `serve*` function binds `host` (127.0.0.1 unless given) on `port` (0: the kernel picks
one), prints `PORT=<n>` as the first stdout line (the contract of
Tests/TestSupport/TestServer.swift and scripts/demo.sh), and runs until SIGTERM / Ctrl-C or
until its parent process is gone:

  serve(app)               an aiohttp web.Application
  serve_asgi(app)          an ASGI app under uvicorn
  serve_streams(handler)   an asyncio streams handler `async def handler(reader, writer)`

Scripts import it as `import loopback`: Python puts the script's own folder first on sys.path.
"""
import asyncio
import os
import sys


async def exit_when_orphaned():
    """Exits when the test process that started this server is gone (e.g. it crashed), so no
    server outlives its test run."""
    parent = os.getppid()
    while os.getppid() == parent:
        await asyncio.sleep(0.5)
    os._exit(0)


def announce(port):
    print(f"PORT={port}", flush=True)


def _run(main):
    """Runs the coroutine function `main` next to the orphan watch; Ctrl-C exits quietly."""
    async def guarded():
        asyncio.get_running_loop().create_task(exit_when_orphaned())
        await main()

    try:
        asyncio.run(guarded())
    except KeyboardInterrupt:
        sys.exit(0)


def serve(app, port=0, ssl_context=None, access_log=True, host="127.0.0.1", **runner_options):
    """Serves the aiohttp `app`; `runner_options` go to `web.AppRunner`."""
    from aiohttp import web

    async def main():
        if not access_log:
            runner_options["access_log"] = None
        runner = web.AppRunner(app, **runner_options)
        await runner.setup()
        site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
        await site.start()
        announce(site._server.sockets[0].getsockname()[1])
        await asyncio.Event().wait()

    _run(main)


def serve_streams(handler, port=0, ssl=None, host="127.0.0.1"):
    """Serves raw TCP (or TLS with `ssl`) connections with `handler(reader, writer)`."""
    async def main():
        server = await asyncio.start_server(handler, host, port, ssl=ssl)
        announce(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    _run(main)


def serve_asgi(app, port=0, certfile=None, keyfile=None, host="127.0.0.1"):
    """Serves the ASGI `app` under uvicorn (TLS with `certfile` and `keyfile`)."""
    import socket
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    announce(sock.getsockname()[1])
    config = uvicorn.Config(app, log_level="warning", lifespan="off",
                            ssl_certfile=certfile, ssl_keyfile=keyfile)
    server = uvicorn.Server(config)

    async def main():
        await server.serve(sockets=[sock])

    _run(main)
