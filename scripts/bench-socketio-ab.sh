#!/usr/bin/env bash
# Two builds of SocketIOBenchmark side by side (before/after a change) against one
# python-socketio server, alternating each round, so both see the same machine load.
#   scripts/bench-socketio-ab.sh BEFORE_BINARY AFTER_BINARY [rounds] [transports]
# APIS (default callback,async) picks the client's APIs; CLIENT_ARGS adds options to both
# builds' runs (e.g. CLIENT_ARGS="--ack-timeout 5": SocketIOConcurrency's default deadline).
# Build each with `swift build -c release --product SocketIOBenchmark` and copy
# .build/release/SocketIOBenchmark away. Prints medians (and the min-max spread of CPU/ack)
# per build, transport and API. Both run under scripts/call-counters.sh's LD_PRELOAD, so a
# build that reports them adds allocations and mutex acquisitions per ack.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1; AFTER=$2; ROUNDS=${3:-5}; TRANSPORTS=${4:-websocket}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
COUNTERS=$(scripts/call-counters.sh)
source scripts/bench-sio-server.sh
OUT=$(mktemp)
trap 'stop_bench_sio_server; rm -f "$OUT"' EXIT
start_bench_sio_server
[ -n "$PORT" ] || { echo "server did not start:"; cat "$SERVER_LOG"; exit 1; }
for round in $(seq "$ROUNDS"); do
  for build in before after; do
    BIN=$BEFORE; [ "$build" = after ] && BIN=$AFTER
    LD_PRELOAD=$COUNTERS "$BIN" client "$PORT" --acks 1000 --warmup 100 --emits 2000 --transports "$TRANSPORTS" --apis "${APIS:-callback,async}" ${CLIENT_ARGS:-} \
      | sed "s/^/$build /" >>"$OUT"
  done
done
.venv/bin/python - "$OUT" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    build, _, text = line.partition(" ")
    r = json.loads(text)
    rows.setdefault((r["transport"], r["client"], build), []).append(r)
keys = [("p50_us", "p50 (us)"), ("cpu_per_ack_us", "CPU/ack (us)"), ("switches_per_ack", "switches/ack"),
        ("allocs_per_ack", "allocs/ack"), ("locks_per_ack", "locks/ack"), ("cpu_per_emit_us", "CPU/emit (us)")]
def cell(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return f"{statistics.median(values):14.2f}" if values else f"{'-':>14}"
print(f"{'transport':10} {'api':12} {'build':7} " + " ".join(f"{label:>14}" for _, label in keys) + "   CPU/ack spread   rounds")
for (transport, client, build) in sorted(rows, key=lambda k: (k[0], k[1], k[2] != "before")):
    runs = rows[(transport, client, build)]
    cells = " ".join(cell(runs, k) for k, _ in keys)
    cpu = [r["cpu_per_ack_us"] for r in runs]
    print(f"{transport:10} {client:12} {build:7} {cells}   {min(cpu):6.1f}-{max(cpu):6.1f}   {len(runs)}")
# The async API's cost over the callback API's, paired within each round and build.
for transport in sorted({k[0] for k in rows}):
    for build in ("before", "after"):
        sync, async_ = rows.get((transport, "swift", build), []), rows.get((transport, "swift-async", build), [])
        cpu = [a["cpu_per_ack_us"] / s["cpu_per_ack_us"] for s, a in zip(sync, async_)]
        p50 = [a["p50_us"] / s["p50_us"] for s, a in zip(sync, async_)]
        if cpu:
            print(f"{transport:10} async/callback {build:7} CPU/ack x{statistics.median(cpu):.2f}  p50 x{statistics.median(p50):.2f}")
# after/before, paired within each round.
for (transport, client) in sorted({(k[0], k[1]) for k in rows}):
    before, after = rows.get((transport, client, "before"), []), rows.get((transport, client, "after"), [])
    cpu = [a["cpu_per_ack_us"] / b["cpu_per_ack_us"] for b, a in zip(before, after)]
    p50 = [a["p50_us"] / b["p50_us"] for b, a in zip(before, after)]
    if cpu:
        print(f"{transport:10} {client:12} after/before CPU/ack x{statistics.median(cpu):.2f}  p50 x{statistics.median(p50):.2f}")
PY
