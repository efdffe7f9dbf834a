#!/usr/bin/env bash
# SSE benchmark: parser throughput/linearity, then end-to-end events/s and client CPU per
# event against a local server (pre-built payload written in 1 MiB writes), Swift EventSource
# next to Python httpx-sse in the same run, and one 16 MiB event. Each end-to-end figure is
# printed beside the kernel's in the same run (scripts/stream-floor.c): the loopback copy rate
# between two C processes, and a C client that only recv()s the same body from the same
# server. Release build; prints tables.
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

WORK=$(mktemp -d)
gcc -O2 -o "$WORK/stream-floor" scripts/stream-floor.c
.venv/bin/python -u Tests/Servers/sse_raw_server.py >"$WORK/server.log" 2>&1 &
SERVER=$!
# The large event comes from the C server: the Python server's one 16 MiB write leaves the
# asyncio transport at about 250 MB/s, below what the clients read.
"$WORK/stream-floor" serve >"$WORK/cserver.log" 2>&1 &
CSERVER=$!
trap 'kill "$SERVER" "$CSERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do grep -q PORT= "$WORK/server.log" && grep -q PORT= "$WORK/cserver.log" && break; sleep 0.05; done
PORT=$(grep -m1 PORT= "$WORK/server.log" | cut -d= -f2)
CPORT=$(grep -m1 PORT= "$WORK/cserver.log" | cut -d= -f2)
LARGE=$((16 * 1024 * 1024 - 8))

echo "The kernel: bytes, seconds, MB/s, CPU seconds"
"$WORK/stream-floor" pair 1000000000
echo

echo "End to end: $EVENTS events of $((SIZE + 8)) bytes (data $SIZE) from 127.0.0.1:$PORT/flood"
printf '%-34s%16s%16s%16s%16s%16s%16s\n' "client" "events" "seconds" "events/s" "CPU us/event" "MB/s" "MB/CPU-s"
# Five runs: this 2-vCPU machine's scheduling moves one run's events/s by about a quarter.
SSE_BENCH_RUNS=5 "$BENCH" client "$PORT" "$EVENTS" "$SIZE" native || echo "swift native client failed"
# The same events through AsyncStream(unfolding:), as events() would return Recouse's type.
"$BENCH" client "$PORT" "$EVENTS" "$SIZE" native asyncstream || echo "swift native AsyncStream client failed"
# The same client over an in-memory transport: the EventSource layer's own share of the CPU.
"$BENCH" client-memory "$EVENTS" "$SIZE" || echo "swift in-memory client failed"
"$BENCH" client-memory "$EVENTS" "$SIZE" asyncstream || echo "swift in-memory AsyncStream client failed"
# URLSession (FoundationNetworking) is opt-in: on Linux a data task cannot be paused (a resume
# sends the request again), so a consumer more than 4 MiB behind this flood gets .bodyTooLarge.
if [ "${SSE_BENCH_URLSESSION:-0}" = 1 ]; then
  "$BENCH" client "$PORT" "$EVENTS" "$SIZE" urlsession || echo "swift URLSession client failed"
fi
.venv/bin/python Tests/Servers/sse_httpx_bench_client.py "$PORT" "$EVENTS" "$SIZE"
"$WORK/stream-floor" get "$PORT" "/flood?count=$EVENTS&size=$SIZE"
echo "(MB/s: event bytes over wall time; MB/CPU-s: over the client's CPU time; in memory: over its CPU time;"
echo " the kernel floor's row: body bytes, seconds, MB/s, CPU seconds)"
echo

echo "End to end: one event of 16 MiB from the C server at 127.0.0.1:$CPORT, MB/s from the open response to the event"
"$BENCH" client-large "$CPORT" "$LARGE" native || echo "swift native client failed"
.venv/bin/python Tests/Servers/sse_httpx_bench_client.py large "$CPORT" "$LARGE"
for _ in 1 2 3; do "$WORK/stream-floor" get "$CPORT" "/flood?count=1&size=$LARGE"; done
echo "targets: >= 3,000,000 events/s end to end for 64-byte events; one 16 MiB event >= 1000 MB/s"
