"""The Socket.IO server's own ceiling for emits over HTTP long-polling.

A minimal Engine.IO v4 polling client (http.client, one keep-alive connection, no thread):
handshake, CONNECT the default namespace, then `total` emits of `["sink", "payload", n]` in
sequential POSTs of `per` packets each, as fast as the server answers. It reports the rate and
the server process's CPU per POST (read from /proc/<server pid>/stat), and so the most emits
per second any client can reach at `per` packets per POST while the server has one core.

  polling_post_ceiling.py <port> <packets per POST> <total emits> <server pid>
"""
import http.client
import json
import os
import sys
import time

port, per, total, server_pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
connection = http.client.HTTPConnection("127.0.0.1", port)


def server_cpu_seconds():
    fields = open(f"/proc/{server_pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request(method, query, body=None):
    headers = {"Content-Type": "text/plain;charset=UTF-8"} if body else {}
    connection.request(method, "/socket.io/?EIO=4&transport=polling" + query, body=body, headers=headers)
    return connection.getresponse().read().decode()


sid = json.loads(request("GET", "&t=1")[1:])["sid"]
request("POST", f"&sid={sid}&t=2", "40")
request("GET", f"&sid={sid}&t=3")
cpu_start, wall_start, sent, counter = server_cpu_seconds(), time.perf_counter(), 0, 3
while sent < total:
    body = "\x1e".join(f'42["sink","payload",{sent + i}]' for i in range(per))
    sent += per
    counter += 1
    answer = request("POST", f"&sid={sid}&t={counter}", body)
    if answer != "OK":
        sys.exit(f"POST refused: {answer[:200]!r}")
wall = time.perf_counter() - wall_start
posts = total / per
server_cpu = (server_cpu_seconds() - cpu_start) / posts
print(f"  {per:3} packets/POST: {total / wall:8.0f} emits/s, {wall / posts * 1e6:6.0f} us per POST; "
      f"server CPU per POST {server_cpu * 1e6:5.0f} us -> at most {per / server_cpu:8.0f} emits/s")
