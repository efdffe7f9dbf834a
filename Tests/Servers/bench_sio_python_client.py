"""python-socketio AsyncClient side of the SocketIO benchmark (the reference client).

Does exactly what SocketIOBenchmark's Swift client does, against bench_sio_server.py, and prints
one JSON object per transport on stdout (the keys SocketIOBenchmark reads):

  {"client": "python", "transport": "websocket", "acks": N, "p50_us": .., "p99_us": ..,
   "cpu_per_ack_us": .., "switches_per_ack": .., "emits": M, "cpu_per_emit_us": .., "emit_seconds": ..}

Round trips: `warmup` then `acks` sequential `call("echo", "payload", i)`, each timed with
perf_counter. CPU: getrusage(RUSAGE_SELF) user+sys of this process across the measured part;
context switches (voluntary + involuntary) of the process across the round trips, per ack.
Fire-and-forget: `sink_start(M)`, then `emits` x `emit("sink", "payload", i)` and wait for the
server's "sink_done" (the server counted all M); CPU / M.

  bench_sio_python_client.py <port> [--transports websocket,polling] [--acks N] [--warmup W] [--emits M]
"""
import argparse
import asyncio
import json
import math
import resource
import sys
import time

import socketio


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def context_switches():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw + usage.ru_nivcsw


def percentile(sorted_values, fraction):
    # Nearest-rank percentile, the same definition as the Swift side.
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


async def measure(port, transport, acks, warmup, emits):
    client = socketio.AsyncClient(reconnection=False)
    done = asyncio.Event()

    @client.on("sink_done")
    async def sink_done(*data):
        done.set()

    await client.connect(f"http://127.0.0.1:{port}", transports=[transport], wait_timeout=10)

    for i in range(warmup):
        await client.call("echo", ("payload", i), timeout=30)

    samples = []
    switches_start = context_switches()
    cpu_start = cpu_seconds()
    for i in range(acks):
        start = time.perf_counter()
        await client.call("echo", ("payload", i), timeout=30)
        samples.append(time.perf_counter() - start)
    cpu_acks = cpu_seconds() - cpu_start
    switches_acks = context_switches() - switches_start
    samples.sort()

    await client.call("sink_start", emits, timeout=30)
    cpu_start = cpu_seconds()
    wall_start = time.perf_counter()
    for i in range(emits):
        await client.emit("sink", ("payload", i))
    await asyncio.wait_for(done.wait(), timeout=60)
    emit_seconds = time.perf_counter() - wall_start
    cpu_emits = cpu_seconds() - cpu_start

    # Over polling, AsyncClient.disconnect() waits for the pending long-poll GET to end (up to
    # the server's ping interval, 25 s): the measurements are taken, so do not wait for it.
    try:
        await asyncio.wait_for(client.disconnect(), timeout=1)
    except asyncio.TimeoutError:
        pass
    http = getattr(client.eio, "http", None)
    if http is not None and not http.closed:
        await http.close()
    return {
        "client": "python",
        "transport": transport,
        "acks": acks,
        "p50_us": percentile(samples, 0.50) * 1e6,
        "p99_us": percentile(samples, 0.99) * 1e6,
        "cpu_per_ack_us": cpu_acks / acks * 1e6,
        "switches_per_ack": switches_acks / acks,
        "emits": emits,
        "cpu_per_emit_us": cpu_emits / emits * 1e6,
        "emit_seconds": emit_seconds,
    }


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--transports", default="websocket,polling")
    parser.add_argument("--acks", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--emits", type=int, default=2000)
    args = parser.parse_args()
    for transport in args.transports.split(","):
        result = await measure(args.port, transport, args.acks, args.warmup, args.emits)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # noqa: BLE001 - report any failure as one line for the driver
        print(json.dumps({"client": "python", "error": repr(error)}), flush=True)
        sys.exit(1)
