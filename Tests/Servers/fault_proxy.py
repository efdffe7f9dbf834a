"""A loopback TCP proxy that injects faults on command (asyncio), for the fault-injection tests.

    fault_proxy.py --target-port N [--port P]

Listens on 127.0.0.1 (port 0 unless --port), prints PORT=<n>, and forwards every connection to
127.0.0.1:<target-port>. The test commands it through stdin, one line per command, each
starting with an id the proxy echoes when the command took effect: `7 reset` -> `OK 7`
(or `ERR 7 <why>`). Tests/TestSupport/FaultProxy.swift speaks this.

Commands ("down" is the server-to-client direction, "up" client-to-server):
  reset                 RST every open connection now (SO_LINGER 0, both sides)
  reset-after N         every open connection passes N more bytes down, then RST (cuts a
                        frame or an HTTP response in the middle); later connections are spared
  truncate-after N      the next connection that sends down passes N bytes down, then closes
                        cleanly (FIN): a truncated HTTP response
  stall                 open connections pass no bytes in either direction until `resume`
                        (new ones work)
  resume                ends `stall` and `drip`
  drip MS               every connection passes bytes down one at a time, MS ms apart
  refuse SECONDS        stops listening (new connections are refused), listens again after
                        SECONDS; open connections stay
  down                  RST every connection and stop listening until `up` (the server
                        is gone)
  up                    listen again
  clear                 forgets reset-after / truncate-after
  stats                 prints `STATS <id> open=<n> total=<m> down=<bytes> up=<bytes>` first
"""
import argparse
import asyncio
import os
import socket
import struct
import sys

import loopback

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--target-port", type=int, required=True)
args = parser.parse_args()


class Connection:
    def __init__(self, proxy, client_reader, client_writer):
        self.proxy = proxy
        self.client_reader, self.client_writer = client_reader, client_writer
        self.server_reader = self.server_writer = None
        self.reset_after = None
        self.stalled = False
        self.truncate_after = None
        self.tasks = []
        self.closed = False

    async def run(self):
        try:
            self.server_reader, self.server_writer = await asyncio.open_connection("127.0.0.1", args.target_port)
        except OSError:
            self.abort()
            return
        self.tasks = [asyncio.ensure_future(self.pump(self.client_reader, self.server_writer, down=False)),
                      asyncio.ensure_future(self.pump(self.server_reader, self.client_writer, down=True))]
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.abort()

    async def pump(self, reader, writer, down):
        """Copies one direction; an end on either side (FIN) closes both cleanly, an error
        (RST) aborts both, so `stats` counts only what is really open."""
        try:
            while not self.closed:
                data = await reader.read(65536)
                if not data:
                    self.close_cleanly()
                    return
                while self.stalled and not self.closed:
                    await asyncio.sleep(0.02)
                if self.closed:
                    return
                if down:
                    await self.send_down(data, writer)
                else:
                    self.proxy.up_bytes += len(data)
                    writer.write(data)
                    await writer.drain()
        except asyncio.CancelledError:
            pass
        except (ConnectionError, OSError):
            self.abort()

    async def send_down(self, data, writer):
        if self.truncate_after is None and self.proxy.truncate_next is not None:
            self.truncate_after, self.proxy.truncate_next = self.proxy.truncate_next, None
        limit = None
        if self.reset_after is not None:
            limit = ("reset", self.reset_after)
        elif self.truncate_after is not None:
            limit = ("truncate", self.truncate_after)
        if limit is not None and len(data) >= limit[1]:
            kind, count = limit
            self.write_down(writer, data[:count])
            await writer.drain()
            if kind == "reset":
                self.abort()
            else:
                self.close_cleanly()
            return
        if limit is not None:
            if limit[0] == "reset":
                self.reset_after -= len(data)
            else:
                self.truncate_after -= len(data)
        if self.proxy.drip_ms:
            for i in range(len(data)):
                while self.stalled and not self.closed:
                    await asyncio.sleep(0.02)
                if self.closed:
                    return
                self.write_down(writer, data[i:i + 1])
                await writer.drain()
                await asyncio.sleep(self.proxy.drip_ms / 1000)
        else:
            self.write_down(writer, data)
            await writer.drain()

    def write_down(self, writer, data):
        self.proxy.down_bytes += len(data)
        writer.write(data)

    def close_cleanly(self):
        if self.closed:
            return
        self.closed = True
        for writer in (self.client_writer, self.server_writer):
            if writer is not None:
                writer.close()
        self.finish()

    def abort(self):
        """RST both sides."""
        if self.closed:
            return
        self.closed = True
        for writer in (self.client_writer, self.server_writer):
            if writer is None:
                continue
            sock = writer.get_extra_info("socket")
            try:
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            writer.transport.abort()
        self.finish()

    def finish(self):
        self.proxy.connections.discard(self)
        for task in self.tasks:
            if task is not asyncio.current_task():
                task.cancel()


class Proxy:
    def __init__(self):
        self.connections = set()
        self.server = None
        self.port = args.port
        self.drip_ms = 0
        self.truncate_next = None
        self.total = 0
        self.down_bytes = 0
        self.up_bytes = 0
        self.reopen_task = None

    async def handle(self, reader, writer):
        self.total += 1
        connection = Connection(self, reader, writer)
        self.connections.add(connection)
        await connection.run()

    async def listen(self):
        if self.server is not None:
            return
        # SO_REUSEADDR (asyncio's default) lets the same port be bound again at once.
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    def stop_listening(self):
        if self.server is not None:
            self.server.close()
            self.server = None

    async def command(self, words):
        name, rest = words[0], words[1:]
        if name == "reset":
            for connection in list(self.connections):
                connection.abort()
        elif name == "reset-after":
            for connection in list(self.connections):
                connection.reset_after = int(rest[0])
        elif name == "truncate-after":
            self.truncate_next = int(rest[0])
        elif name == "stall":
            for connection in list(self.connections):
                connection.stalled = True
        elif name == "resume":
            for connection in list(self.connections):
                connection.stalled = False
            self.drip_ms = 0
        elif name == "drip":
            self.drip_ms = float(rest[0])
        elif name == "refuse":
            self.stop_listening()
            seconds = float(rest[0])

            async def reopen():
                await asyncio.sleep(seconds)
                await self.listen()
            self.reopen_task = asyncio.ensure_future(reopen())
        elif name == "down":
            self.stop_listening()
            for connection in list(self.connections):
                connection.abort()
        elif name == "up":
            await self.listen()
        elif name == "clear":
            self.truncate_next = None
            for connection in list(self.connections):
                connection.reset_after = None
                connection.truncate_after = None
        elif name == "stats":
            return f"open={len(self.connections)} total={self.total} down={self.down_bytes} up={self.up_bytes}"
        else:
            raise ValueError(f"unknown command {name}")
        return None

    async def control(self):
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while True:
            line = await reader.readline()
            if not line:
                # The test closed our stdin: it is done with us.
                os._exit(0)
            words = line.decode().split()
            if len(words) < 2:
                continue
            ident = words[0]
            try:
                stats = await self.command(words[1:])
                if stats is not None:
                    print(f"STATS {ident} {stats}", flush=True)
                print(f"OK {ident}", flush=True)
            except Exception as error:  # a bad command is the test's bug: report it
                print(f"ERR {ident} {error}", flush=True)

    async def main(self):
        await self.listen()
        loopback.announce(self.port)
        await self.control()


loopback._run(Proxy().main)
