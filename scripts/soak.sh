#!/usr/bin/env bash
# Soak and scale runs (release build, loopback only; not part of CI's tests):
#   1. 1,000 Socket.IO clients in one process against python-socketio, one emitWithAck each
#      per second, for 10 minutes;
#   2. 1,000 concurrent EventSource streams (one event a second each), for 5 minutes;
#   3. 10,000 idle WebSocket connections, for 2 minutes;
#   4. 10,000 Socket.IO clients over WebSocket, heartbeats every 10 s, 10 s idle, then one
#      broadcast to all of them every second for 60 s: events lost, delivery latency p50/p99,
#      memory per client, the client's CPU while idle (RealtimeSoak broadcast).
# Each samples resident memory, threads and open descriptors once a second into
# soak-results/<mode>.csv, prints a summary (memory slope after warm-up, memory per
# connection) and the script plots all of them into soak-results/soak.png.
#   scripts/soak.sh            the full runs above
#   scripts/soak.sh --short    50 clients / 50 streams / 500 connections for 20 s each,
#                              500 broadcast clients for 10 s
#   scripts/soak.sh broadcast  the broadcast run alone (BROADCAST_CLIENTS, BROADCAST_SECONDS,
#                              BROADCAST_LOOPS: the managers' event-loop group, 0 = one loop per core;
#                              BROADCAST_NO_HANDOFF_BATCHING=1: each handler item handed to its
#                              queue at once instead of once per loop turn, for an A/B)
#   scripts/soak.sh scale      the broadcast run with 10,000 clients on 1 loop and on 2, then on
#                              2 loops with 1,000 and 100 clients (each loop's CPU, CPU per event)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--short" ]; then
  SIO_CLIENTS=50 SIO_SECONDS=20 SSE_STREAMS=50 SSE_SECONDS=20 WS_CONNECTIONS=500 WS_SECONDS=20
  BROADCAST_CLIENTS=500 BROADCAST_SECONDS=10
else
  SIO_CLIENTS=${SIO_CLIENTS:-1000} SIO_SECONDS=${SIO_SECONDS:-600}
  SSE_STREAMS=${SSE_STREAMS:-1000} SSE_SECONDS=${SSE_SECONDS:-300}
  WS_CONNECTIONS=${WS_CONNECTIONS:-10000} WS_SECONDS=${WS_SECONDS:-120}
  BROADCAST_CLIENTS=${BROADCAST_CLIENTS:-10000} BROADCAST_SECONDS=${BROADCAST_SECONDS:-60}
fi
./scripts/bootstrap.sh >/dev/null
.venv/bin/python -c "import matplotlib" 2>/dev/null \
  || .venv/bin/pip install -q --disable-pip-version-check -r requirements-soak.txt
swift build -c release --product RealtimeSoak 2>&1 | grep -E "error|Build" | tail -3
SOAK=.build/release/RealtimeSoak
OUT=soak-results
mkdir -p "$OUT"
# 10,000 connections need more descriptors than the default 1,024 (client and server alike).
ulimit -n "$(ulimit -Hn)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; descriptor limit $(ulimit -n)"

SERVER=""
start_server() {  # start_server SCRIPT: sets PORT
  LOG=$(mktemp)
  .venv/bin/python -u "Tests/Servers/$1" >"$LOG" 2>&1 &
  SERVER=$!
  for _ in $(seq 200); do grep -q PORT= "$LOG" && break; sleep 0.05; done
  PORT=$(grep -m1 PORT= "$LOG" | cut -d= -f2)
  [ -n "$PORT" ] || { echo "server $1 did not start:"; cat "$LOG"; exit 1; }
}
stop_server() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  SERVER=""
}
trap 'stop_server' EXIT

status=0
run_broadcast() {
  # The reference Node server when ../shared/node-sio is there (python-socketio takes about
  # 1.5 s to fan one broadcast out to 10,000 clients, so it, not the client, sets the latency).
  if [ -d ../shared/node-sio/node_modules ] && command -v node >/dev/null && [ "${BROADCAST_SERVER:-node}" = node ]; then
    LOG=$(mktemp)
    NODE_PATH=../shared/node-sio/node_modules node Tests/Servers/node_broadcast_server.js 10 >"$LOG" 2>&1 &
    SERVER=$!
    for _ in $(seq 200); do grep -q PORT= "$LOG" && break; sleep 0.05; done
    PORT=$(grep -m1 PORT= "$LOG" | cut -d= -f2)
    echo "broadcast server: socket.io $(NODE_PATH=../shared/node-sio/node_modules node -p 'require("socket.io/package.json").version') (Node.js)"
  else
    start_server soak_broadcast_server.py
    echo "broadcast server: python-socketio (no ../shared/node-sio, or BROADCAST_SERVER=python)"
  fi
  "$SOAK" broadcast "$PORT" --clients "$BROADCAST_CLIENTS" --seconds "$BROADCAST_SECONDS" --idle-seconds 10 \
    --loops "${BROADCAST_LOOPS:-0}" ${BROADCAST_NO_HANDOFF_BATCHING:+--no-handoff-batching} --csv "$OUT/broadcast.csv" || status=1
  stop_server
}
if [ "${1:-}" = "broadcast" ]; then
  run_broadcast
  exit $status
fi
if [ "${1:-}" = "scale" ]; then
  # Issue 36's figures: 10,000 clients on 1 loop and on 2, then 2 loops with 1,000 and 100
  # clients (CPU per delivered event from 100 to 10,000 clients; each loop's CPU).
  for spec in "1 10000" "2 10000" "2 1000" "2 100"; do
    set -- $spec
    echo "== scale: $2 clients, $1 event loop(s)"
    BROADCAST_LOOPS=$1 BROADCAST_CLIENTS=$2 run_broadcast
  done
  exit $status
fi
start_server bench_sio_server.py
"$SOAK" socketio "$PORT" --clients "$SIO_CLIENTS" --seconds "$SIO_SECONDS" --csv "$OUT/socketio.csv" || status=1
stop_server
start_server soak_server.py
"$SOAK" sse "$PORT" --streams "$SSE_STREAMS" --seconds "$SSE_SECONDS" --csv "$OUT/sse.csv" || status=1
"$SOAK" ws-idle "$PORT" --connections "$WS_CONNECTIONS" --seconds "$WS_SECONDS" --csv "$OUT/ws-idle.csv" || status=1
stop_server
run_broadcast
.venv/bin/python scripts/soak_plot.py "$OUT/soak.png" "$OUT/socketio.csv" "$OUT/sse.csv" "$OUT/ws-idle.csv"
echo "wrote $OUT/socketio.csv $OUT/sse.csv $OUT/ws-idle.csv $OUT/broadcast.csv and $OUT/soak.png"
exit $status
