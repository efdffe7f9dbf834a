#!/usr/bin/env bash
# The Socket.IO layers' own CPU per WebSocket emitWithAck (issue 34), measured in one run:
# round-robin rounds of
#   raw    WebSocketBenchmark --echo-only: 5-byte text echoes sent and received by one task
#          on the event loop's executor (Tests/Servers/ws_echo_server.py --no-compression);
#   hop    WebSocketBenchmark --echo-only --hop: the same echo with the callback API's thread
#          structure: received on the loop, one DispatchQueue.async per message, the next
#          message sent from that queue (as an emit from the previous ack's callback on
#          handleQueue);
#   ack    SocketIOBenchmark client --apis callback,async,async-loop --transports websocket
#          (Tests/Servers/bench_sio_server.py); async-loop is the async API in a task that
#          prefers the manager's loop (SocketManager.taskExecutor): the raw echo's thread
#          structure, one wake-up per round trip.
# Prints medians (min-max) of client CPU and context switches per round trip, and the
# differences paired within each round: ack - raw (the layers' own, as issue 34 defines
# it), ack - hop (the layers' own over the callback contract's thread structure), async-loop
# ack - raw (the layers' own with the raw echo's thread structure), and async/callback.
#
#   scripts/bench-layers.sh [rounds] [SocketIOBenchmark binary] [WebSocketBenchmark binary]
#
# rounds defaults to 5. Without binaries, builds both in release mode; give a copied-away
# SocketIOBenchmark to measure another build of the layers (a before/after pair is two runs).
# ECHO_ROUND_TRIPS (default 20000) and ACKS (default 2000) set each measurement's length.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || ./scripts/bootstrap.sh
ROUNDS=${1:-5}
SIO_BIN=${2:-}
WS_BIN=${3:-}
ECHO_ROUND_TRIPS=${ECHO_ROUND_TRIPS:-20000}
ACKS=${ACKS:-2000}

if [ -z "$SIO_BIN" ] || [ -z "$WS_BIN" ]; then
  # One `--product` per build: SwiftPM keeps only the last of several.
  [ -n "$SIO_BIN" ] || swift build -c release --product SocketIOBenchmark
  [ -n "$WS_BIN" ] || swift build -c release --product WebSocketBenchmark
  bin=$(swift build -c release --show-bin-path)
  SIO_BIN=${SIO_BIN:-$bin/SocketIOBenchmark}
  WS_BIN=${WS_BIN:-$bin/WebSocketBenchmark}
fi

source scripts/bench-sio-server.sh
source scripts/bench-echo-server.sh
OUT=$(mktemp)
cleanup() {
  stop_bench_sio_server
  stop_echo_server
  rm -f "$OUT"
}
trap cleanup EXIT
start_echo_server
start_bench_sio_server
[ -n "$PORT" ] || { echo "Socket.IO server did not start:"; cat "$SERVER_LOG"; exit 1; }

echo "SocketIOBenchmark:  $SIO_BIN"
echo "WebSocketBenchmark: $WS_BIN"
echo "$ROUNDS rounds: $ECHO_ROUND_TRIPS echo round trips, $ACKS acks each"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
measure() {
  case "$1" in
    raw) "$WS_BIN" "$ECHO_PORT" --echo-only --round-trips "$ECHO_ROUND_TRIPS" ;;
    hop) "$WS_BIN" "$ECHO_PORT" --echo-only --hop --round-trips "$ECHO_ROUND_TRIPS" ;;
    ack) "$SIO_BIN" client "$PORT" --acks "$ACKS" --warmup 200 --emits 200 --transports websocket --apis callback,async,async-loop ;;
  esac
}
modes=(raw hop ack)
for round in $(seq "$ROUNDS"); do
  # Each round starts with the next mode, so none always runs first after a pause.
  for i in 0 1 2; do
    mode=${modes[$(((round + i) % 3))]}
    measure "$mode" | sed "s/^/$round /" >>"$OUT"
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

.venv/bin/python - "$OUT" <<'PY'
import json, statistics, sys
# rows[name][round] = (CPU us per round trip, switches per round trip)
rows = {}
for line in open(sys.argv[1]):
    round_, _, text = line.partition(" ")
    r = json.loads(text)
    if "mode" in r:
        name = r["mode"] + " echo"
        value = (r["cpu_per_round_trip_us"], r["switches_per_round_trip"])
        if r["fallback_sends"]:
            print(f"note: round {round_} hop echo: {r['fallback_sends']} sends took the async fallback")
    else:
        name = {"swift": "ack callback", "swift-async": "ack async", "swift-async-loop": "ack async-loop"}[r["client"]]
        value = (r["cpu_per_ack_us"], r["switches_per_ack"])
    rows.setdefault(name, {})[int(round_)] = value
names = ["raw echo", "hop echo", "ack callback", "ack async", "ack async-loop"]

def spread(values, fmt):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"

print()
print(f"{'per round trip':16} {'client CPU us, median (min-max)':>34} {'switches, median (min-max)':>30}  rounds")
for name in names:
    runs = list(rows.get(name, {}).values())
    if runs:
        print(f"{name:16} {spread([c for c, _ in runs], '{:.1f}'):>34} {spread([s for _, s in runs], '{:.2f}'):>30}  {len(runs)}")

def paired(a, b, op):
    """op(a, b) per round where both ran, CPU and switches."""
    common = sorted(set(rows.get(a, {})) & set(rows.get(b, {})))
    return ([op(rows[a][k][0], rows[b][k][0]) for k in common], [op(rows[a][k][1], rows[b][k][1]) for k in common])

print()
print("paired within each round, median (min-max):")
for api in ("callback", "async"):
    ack = f"ack {api}"
    for base, meaning in (("raw echo", "layers' own, as issue 34 defines it"),
                          ("hop echo", "layers' own over the callback contract's thread structure")):
        cpu, switches = paired(ack, base, lambda x, y: x - y)
        if cpu:
            print(f"  {ack + ' - ' + base:24} CPU {spread(cpu, '{:+.1f}'):>26} us  switches {spread(switches, '{:+.2f}'):>24}"
                  f"   {meaning}")
cpu, switches = paired("ack async-loop", "raw echo", lambda x, y: x - y)
if cpu:
    print(f"  {'ack async-loop - raw echo':24} CPU {spread(cpu, '{:+.1f}'):>26} us  switches {spread(switches, '{:+.2f}'):>24}"
          "   layers' own with the raw echo's thread structure")
cpu, switches = paired("hop echo", "raw echo", lambda x, y: x - y)
if cpu:
    print(f"  {'hop echo - raw echo':24} CPU {spread(cpu, '{:+.1f}'):>26} us  switches {spread(switches, '{:+.2f}'):>24}"
          "   the contract's hand-off alone")
cpu, _ = paired("ack async", "ack callback", lambda x, y: x / y)
if cpu:
    print(f"  {'ack async / callback':24} CPU x{spread(cpu, '{:.2f}')}")
PY
