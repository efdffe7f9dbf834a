"""The Python side of the WebSocket benchmark: the `websockets` 17.4 asyncio client doing
what WebSocketBenchmark does, against the same ws_echo_server.py. Prints one JSON object.

usage: ws_bench_client.py PORT [--round-trips N] [--messages N] [--only round-trips|throughput]

Round trips also report the client's CPU time per round trip (user + system, this process).
"""
import argparse
import asyncio
import json
import time

from websockets.asyncio.client import connect


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--round-trips", type=int, default=20000)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--only", choices=["round-trips", "throughput"], default=None)
    args = parser.parse_args()
    base = f"ws://127.0.0.1:{args.port}"
    opts = dict(compression=None, max_size=None, ping_interval=None)
    results = {}

    if args.only != "throughput":
        async with connect(base + "/echo", **opts) as ws:
            for _ in range(200):
                await ws.send("hello")
                await ws.recv()
            start = time.perf_counter()
            cpu_start = time.process_time()
            for _ in range(args.round_trips):
                await ws.send("hello")
                await ws.recv()
            results["round_trip_cpu_us"] = (time.process_time() - cpu_start) / args.round_trips * 1e6
            results["round_trips_per_second"] = args.round_trips / (time.perf_counter() - start)
    if args.only == "round-trips":
        print(json.dumps(results), flush=True)
        return

    payload = bytes(65536)
    async with connect(base + "/sink", **opts) as ws:
        start = time.perf_counter()
        for _ in range(args.messages):
            await ws.send(payload)
        await ws.send("end")
        reply = await ws.recv()
        elapsed = time.perf_counter() - start
        assert reply == f"done:{args.messages * 65536}", reply
        results["upload_mib_per_second"] = args.messages * 65536 / elapsed / (1 << 20)

    async with connect(base + f"/source?count={args.messages}&size=65536", **opts) as ws:
        start = time.perf_counter()
        received = 0
        while True:
            message = await ws.recv()
            if message == "end":
                break
            received += len(message)
        elapsed = time.perf_counter() - start
        assert received == args.messages * 65536
        results["download_mib_per_second"] = received / elapsed / (1 << 20)

    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
