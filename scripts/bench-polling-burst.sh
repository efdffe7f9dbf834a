#!/usr/bin/env bash
# Fire-and-forget emits over HTTP long-polling: one or more SocketIOBenchmark builds next to
# python-socketio's AsyncClient, alternating each round against one python-socketio server,
# then the server's own ceiling for a client that sends 16 packets per POST.
#   scripts/bench-polling-burst.sh [rounds] [emits] [SocketIOBenchmark binary...]
# Default: 5 rounds, 5,000 emits (python's AsyncClient puts every queued packet into one POST,
# and the benchmark server stops decoding such POSTs at about 10,000), the release build.
# Prints medians and min-max spreads of client CPU per emit and emits/s (until the server
# counted them all), and the server's CPU per 16-packet POST with the rate that bounds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}; EMITS=${2:-5000}; shift 2 || true
BUILDS=("$@")
if [ ${#BUILDS[@]} -eq 0 ]; then
  swift build -c release --product SocketIOBenchmark 2>&1 | grep -E "error|Build" | tail -3
  BUILDS=(.build/release/SocketIOBenchmark)
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
source scripts/bench-sio-server.sh
OUT=$(mktemp)
trap 'stop_bench_sio_server; rm -f "$OUT"' EXIT
start_bench_sio_server
[ -n "$PORT" ] || { echo "server did not start:"; cat "$SERVER_LOG"; exit 1; }
for _ in $(seq "$ROUNDS"); do
  for build in "${BUILDS[@]}" python; do
    if [ "$build" = python ]; then
      .venv/bin/python Tests/Servers/bench_sio_python_client.py "$PORT" --transports polling --acks 50 --warmup 10 \
        --emits "$EMITS" 2>/dev/null | sed "s|^|python |" >>"$OUT" || true
      echo >>"$OUT"
    else
      "$build" client "$PORT" --acks 50 --warmup 10 --emits "$EMITS" --transports polling --apis callback \
        | sed "s|^|$build |" >>"$OUT"
    fi
  done
done
.venv/bin/python - "$OUT" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, _, text = line.partition(" ")
    if not text.strip():
        continue
    record = json.loads(text)
    if "cpu_per_emit_us" not in record:
        print(f"{name}: {record}")
        continue
    rows.setdefault(name, []).append((record["cpu_per_emit_us"], record["emits"] / record["emit_seconds"]))
print(f"{'client':44} {'CPU/emit (us)':>14} {'spread':>13} {'emits/s':>9} {'spread':>15}  rounds")
for name, runs in rows.items():
    cpu = [c for c, _ in runs]; rate = [r for _, r in runs]
    print(f"{name:44} {statistics.median(cpu):14.2f} {min(cpu):6.2f}-{max(cpu):6.2f} {statistics.median(rate):9.0f} "
          f"{min(rate):7.0f}-{max(rate):7.0f}  {len(runs)}")
PY
echo
echo "server ceiling (a minimal keep-alive client, sequential POSTs, the server's CPU per POST):"
for per in 1 16; do
  .venv/bin/python scripts/polling_post_ceiling.py "$PORT" "$per" 9600 "$SERVER"
done
