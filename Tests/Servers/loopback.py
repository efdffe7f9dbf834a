"""What every aiohttp test server here shares: serve on 127.0.0.1, announce the port, run until
stopped.

`serve(app, port)` (aiohttp) and `serve_asgi(app, port)` (an ASGI app under uvicorn) bind 127.0.0.1 on `port` (0: the kernel picks one), prints `PORT=<n>` as
the first stdout line (the contract of Tests/TestSupport/TestServer.swift and scripts/demo.sh),
and runs until SIGTERM / Ctrl-C or until its parent process is gone. Scripts import it as `import loopback`: Python puts the
script's own folder first on sys.path.
"""
import asyncio
import os
import sys

from aiohttp import web


async def exit_when_orphaned():
    """Exits when the test process that started this server is gone (e.g. it crashed), so no
    server outlives its test run."""
    parent = os.getppid()
    while os.getppid() == parent:
        await asyncio.sleep(0.5)
    os._exit(0)


async def _serve(app, port, ssl_context, access_log):
    asyncio.get_running_loop().create_task(exit_when_orphaned())
    runner = web.AppRunner(app) if access_log else web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, ssl_context=ssl_context)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]
    print(f"PORT={bound}", flush=True)
    while True:
        await asyncio.sleep(3600)


def serve_asgi(app, port=0, certfile=None, keyfile=None):
    """Serves the ASGI `app` under uvicorn on 127.0.0.1:`port`, announced like `serve`."""
    import socket
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    print(f"PORT={sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off",
                            ssl_certfile=certfile, ssl_keyfile=keyfile)
    server = uvicorn.Server(config)

    async def run():
        asyncio.get_running_loop().create_task(exit_when_orphaned())
        await server.serve(sockets=[sock])

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        sys.exit(0)


def serve(app, port=0, ssl_context=None, access_log=True):
    """Serves `app` on 127.0.0.1:`port` until the process is stopped."""
    try:
        asyncio.run(_serve(app, port, ssl_context, access_log))
    except KeyboardInterrupt:
        sys.exit(0)
