#!/usr/bin/env bash
# SSE benchmark: parser throughput/linearity, then end-to-end events/s and client CPU per
# event against a local server (pre-built payload written in 1 MiB writes), Swift EventSource
# next to Python httpx-sse in the same run. Release build; prints tables.
#   scripts/bench-sse.sh [events] [data-bytes-per-event]
set -euo pipefail
cd "$(dirname "$0")/.."
EVENTS=${1:-2000000}
SIZE=${2:-56}
./scripts/bootstrap.sh >/dev/null
swift build -c release --product SSEBenchmark 2>&1 | grep -E "error|warning: |Compiling|Build" | tail -3
BENCH=.build/release/SSEBenchmark

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
"$BENCH" parser
echo
"$BENCH" sequence
echo

LOG=$(mktemp)
.venv/bin/python -u Tests/Servers/sse_raw_server.py >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 100); do grep -q PORT= "$LOG" && break; sleep 0.05; done
PORT=$(grep -m1 PORT= "$LOG" | cut -d= -f2)

echo "End to end: $EVENTS events of $((SIZE + 8)) bytes (data $SIZE) from 127.0.0.1:$PORT/flood"
printf '%-34s%16s%16s%16s%16s%16s%16s\n' "client" "events" "seconds" "events/s" "CPU us/event" "MB/s" "MB/CPU-s"
"$BENCH" client "$PORT" "$EVENTS" "$SIZE" native || echo "swift native client failed"
# The same events through AsyncStream(unfolding:), as events() would return Recouse's type.
"$BENCH" client "$PORT" "$EVENTS" "$SIZE" native asyncstream || echo "swift native AsyncStream client failed"
# The same client over an in-memory transport: the EventSource layer's own share of the CPU.
"$BENCH" client-memory "$EVENTS" "$SIZE" || echo "swift in-memory client failed"
"$BENCH" client-memory "$EVENTS" "$SIZE" asyncstream || echo "swift in-memory AsyncStream client failed"
# URLSession (FoundationNetworking) is opt-in: on Linux its data task aborts in
# _NativeProtocol.stopLoading() when the transport suspends it for backpressure at this rate.
if [ "${SSE_BENCH_URLSESSION:-0}" = 1 ]; then
  "$BENCH" client "$PORT" "$EVENTS" "$SIZE" urlsession || echo "swift URLSession client failed"
fi
.venv/bin/python Tests/Servers/sse_httpx_bench_client.py "$PORT" "$EVENTS" "$SIZE"
echo "targets: >= 2,000,000 events/s end to end, < 0.5 us client CPU per event; one 16 MiB event >= 1000 MB/s"
echo "(MB/s: event bytes over wall time; MB/CPU-s: over the client's CPU time; in memory: over its CPU time)"
