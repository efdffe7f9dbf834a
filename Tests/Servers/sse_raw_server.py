"""Raw asyncio HTTP/1.1 server for EventSource edge cases (loopback only).

Binds 127.0.0.1 on a free port and prints PORT=<n> first. Every request is logged on stdout
as `REQUEST <method> <path> last-event-id=<value or -> body=<body>` and every detected client
disconnect as `DISCONNECTED <path>`, so tests can assert what the client sent and did.
Responses are close-delimited (`Connection: close`) unless noted.

Paths:
  /events?count=N&crlf=1       N events (`id: i`, `event: tick`, `data: event i`), then close
  /status/<code>               that status with body `server says <code>` (204: no body)
  /wrong-type                  200 application/json
  /stall                       one event, then no bytes at all (the client's idle timeout fires)
  /keepalive?seconds=S         a comment every 50 ms for S seconds, then one event and close
  /reconnect                   1st: retry: 50, id: 1, data: first, close; 2nd: data: second
                               (id 2), then fails mid-line; 3rd+: 204
  /forever                     an event every 20 ms until the client disconnects
  /restart                     the n-th request: `id: n`, `data: connection n`, then nothing
                               until the client disconnects
  /large?size=N                one event whose data is N bytes, written in 64 KiB pieces
  /cr                          CR-only line endings
  /comments                    comment lines between and inside events
  /echo                        one event whose data is JSON of the request (method, headers, body)
  /redirect?to=URL             302 to URL (default /events?count=1)
  /chunked?count=N             N events with Transfer-Encoding: chunked (one chunk each);
                               &coalesce=1 sends the head and every chunk in one write
  /flood?count=N&size=S        N events of S data bytes, pre-built, written in 1 MiB writes
  /line-never-ends             `data: ` and then 64 KiB pieces of "x" without a line end, until
                               the client goes (256 MiB at most)
  /invalid-utf8                `data: ok \xff\xfe end` (invalid UTF-8), then a valid event
  /replay?total=N              honours Last-Event-ID: `retry: 100`, then events `id: i`,
                               `data: event i` for i after the last ID up to N, one every 10 ms,
                               then close; 204 once the client has all N
"""
import asyncio
import json
from urllib.parse import urlsplit, parse_qs
import loopback


def head(status, content_type="text/event-stream", extra=()):
    reasons = {200: "OK", 204: "No Content", 302: "Found", 401: "Unauthorized", 404: "Not Found",
               500: "Internal Server Error", 503: "Service Unavailable"}
    lines = [f"HTTP/1.1 {status} {reasons.get(status, 'Status')}", "Connection: close", "Cache-Control: no-store"]
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    lines.extend(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Server:
    def __init__(self):
        self.reconnect_count = 0
        self.restart_count = 0

    async def handle(self, reader, writer):
        try:
            request_line = await reader.readline()
            if not request_line:
                return
            method, target, _ = request_line.decode("latin-1").split(" ", 2)
            headers = {}
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = b""
            if "content-length" in headers:
                body = await reader.readexactly(int(headers["content-length"]))
            url = urlsplit(target)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            print(f"REQUEST {method} {url.path} last-event-id={headers.get('last-event-id', '-')} "
                  f"body={body.decode('utf-8', 'replace')}", flush=True)
            await self.route(method, url.path, query, headers, body, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            try:
                writer.close()
                await writer.wait_closed()
            except Exception:
                pass

    async def wait_disconnect(self, reader, path):
        try:
            while await reader.read(1024):
                pass
        except ConnectionError:
            pass
        print(f"DISCONNECTED {path}", flush=True)

    async def route(self, method, path, query, headers, body, reader, writer):
        if path == "/events":
            sep = "\r\n" if query.get("crlf") == "1" else "\n"
            writer.write(head(200))
            for i in range(1, int(query.get("count", "3")) + 1):
                writer.write(f"id: {i}{sep}event: tick{sep}data: event {i}{sep}{sep}".encode())
            await writer.drain()
        elif path == "/line-never-ends":
            writer.write(head(200) + b"data: ")
            piece = b"x" * 65536
            # At most 256 MiB, so a client that does not stop cannot exhaust the machine.
            for _ in range(4096):
                writer.write(piece)
                await writer.drain()
        elif path == "/invalid-utf8":
            writer.write(head(200) + b"data: ok \xff\xfe end\n\ndata: \xc3\xa9 after\n\n")
            await writer.drain()
        elif path == "/replay":
            total = int(query.get("total", "100"))
            last = headers.get("last-event-id", "")
            start = int(last) + 1 if last.isdigit() else 1
            if start > total:
                writer.write(head(204, content_type=None))
                await writer.drain()
                return
            writer.write(head(200) + b"retry: 100\n\n")
            for i in range(start, total + 1):
                writer.write(f"id: {i}\ndata: event {i}\n\n".encode())
                await writer.drain()
                await asyncio.sleep(0.01)
        elif path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[1])
            if code == 204:
                writer.write(head(204, content_type=None))
            else:
                writer.write(head(code, "text/plain") + f"server says {code}".encode())
            await writer.drain()
        elif path == "/wrong-type":
            writer.write(head(200, "application/json") + b'{"not":"a stream"}')
            await writer.drain()
        elif path == "/stall":
            writer.write(head(200) + b"data: before the stall\n\n")
            await writer.drain()
            await self.wait_disconnect(reader, path)
        elif path == "/keepalive":
            writer.write(head(200))
            deadline = asyncio.get_running_loop().time() + float(query.get("seconds", "1"))
            while asyncio.get_running_loop().time() < deadline:
                writer.write(b": keep-alive\n")
                await writer.drain()
                await asyncio.sleep(0.05)
            writer.write(b"data: still here\n\n")
            await writer.drain()
        elif path == "/reconnect":
            self.reconnect_count += 1
            if self.reconnect_count == 1:
                writer.write(head(200) + b"retry: 50\nid: 1\ndata: first\n\n")
            elif self.reconnect_count == 2:
                writer.write(head(200) + b"id: 2\ndata: second\n\ndata: cut in the mid")
            else:
                writer.write(head(204, content_type=None))
            await writer.drain()
        elif path == "/restart":
            self.restart_count += 1
            n = self.restart_count
            writer.write(head(200) + f"id: {n}\ndata: connection {n}\n\n".encode())
            await writer.drain()
            await self.wait_disconnect(reader, path)
        elif path == "/forever":
            writer.write(head(200))
            disconnected = asyncio.ensure_future(self.wait_disconnect(reader, path))
            i = 0
            while not disconnected.done():
                i += 1
                writer.write(f"data: tick {i}\n\n".encode())
                try:
                    await writer.drain()
                except ConnectionError:
                    break
                await asyncio.sleep(0.02)
            await disconnected
        elif path == "/large":
            size = int(query.get("size", str(4 << 20)))
            writer.write(head(200) + b"data: ")
            piece = b"x" * 65536
            left = size
            while left > 0:
                writer.write(piece[:min(left, len(piece))])
                left -= min(left, len(piece))
                await writer.drain()
            writer.write(b"\n\ndata: after\n\n")
            await writer.drain()
        elif path == "/cr":
            writer.write(head(200) + b"event: a\rdata: one\rdata: two\r\rid: 3\rdata: three\r\r")
            await writer.drain()
        elif path == "/comments":
            writer.write(head(200) + b": hello\n\ndata: a\n: inside\ndata: b\n\n:\n\n")
            await writer.drain()
        elif path == "/echo":
            payload = json.dumps({"method": method, "headers": headers, "body": body.decode("utf-8", "replace")})
            writer.write(head(200) + f"data: {payload}\n\n".encode())
            await writer.drain()
        elif path == "/redirect":
            location = query.get("to", "/events?count=1")
            writer.write(head(302, content_type=None, extra=[f"Location: {location}", "Content-Length: 0"]))
            await writer.drain()
        elif path == "/chunked":
            coalesce = query.get("coalesce") == "1"
            pieces = [b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                      b"Connection: close\r\n\r\n"]
            for i in range(1, int(query.get("count", "3")) + 1):
                data = f"data: chunk {i}\n\n".encode()
                pieces.append(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            pieces.append(b"0\r\n\r\n")
            if coalesce:
                # One send: the client's first read gets the head and every chunk together.
                writer.write(b"".join(pieces))
                await writer.drain()
            else:
                for piece in pieces:
                    writer.write(piece)
                    await writer.drain()
        elif path == "/flood":
            count = int(query.get("count", "100000"))
            size = int(query.get("size", "58"))
            event = b"data: " + b"x" * size + b"\n\n"
            per_write = max(1, (1 << 20) // len(event))
            block = event * per_write
            writer.write(head(200))
            sent = 0
            while sent + per_write <= count:
                writer.write(block)
                sent += per_write
                await writer.drain()
            writer.write(event * (count - sent))
            await writer.drain()
        else:
            writer.write(head(404, "text/plain") + b"no such path")
            await writer.drain()


if __name__ == "__main__":
    loopback.serve_streams(Server().handle)
