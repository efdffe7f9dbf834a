"""What every aiohttp test server here shares: serve on 127.0.0.1, announce the port, run until
stopped.

`serve(app, port)` binds 127.0.0.1 on `port` (0: the kernel picks one), prints `PORT=<n>` as
the first stdout line (the contract of Tests/TestSupport/TestServer.swift and scripts/demo.sh),
and runs until SIGTERM / Ctrl-C. Scripts import it as `import loopback`: Python puts the
script's own folder first on sys.path.
"""
import asyncio
import sys

from aiohttp import web


async def _serve(app, port, ssl_context, access_log):
    runner = web.AppRunner(app) if access_log else web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, ssl_context=ssl_context)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]
    print(f"PORT={bound}", flush=True)
    while True:
        await asyncio.sleep(3600)


def serve(app, port=0, ssl_context=None, access_log=True):
    """Serves `app` on 127.0.0.1:`port` until the process is stopped."""
    try:
        asyncio.run(_serve(app, port, ssl_context, access_log))
    except KeyboardInterrupt:
        sys.exit(0)
