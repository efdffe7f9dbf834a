#!/usr/bin/env bash
# Client instructions per Socket.IO emitWithAck round trip, counted by valgrind (callgrind's Ir),
# for one or more builds of SocketIOBenchmark, next to the raw WebSocket echo's round trip
# (WebSocketBenchmark --echo-only, and --hop: the callback API's thread structure): a figure
# that does not move with the machine's load, so a change of a few percent shows in one run
# (CPU time per ack varies by 10% or more from one run to the next here). The layers' own work
# per ack, issue 34's figure in instructions, is an ack's count minus the raw echo's.
#
#   scripts/bench-instructions.sh [SocketIOBenchmark binary...]
#
# Without binaries, builds the current tree in release mode; WS_BIN names a WebSocketBenchmark
# (default: built from the current tree). For each binary, API and transport, the client runs
# twice (SHORT and LONG acks, after the same warm-up) and the difference divided by
# LONG - SHORT is the count per ack: connecting, the warm-up and the process's start and exit
# cancel out. The echoes are counted the same way. REPEATS runs of each give the median
# (min-max). The first binary is the baseline of the ratios.
#
# APIS (default callback,callback-deadline,async,async-loop), TRANSPORTS (default websocket),
# SHORT (500), LONG (1500), REPEATS (3), ACK_TIMEOUT (5 s: the async APIs' default deadline,
# which callback-deadline and the async APIs use).
#
# Counts user-space instructions of the client process only (valgrind does not see the kernel):
# a syscall counts as the instructions around it. Under valgrind the threads run one at a time,
# so this is work, not time.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || ./scripts/bootstrap.sh
source scripts/bench-clients.sh
require_tool valgrind
APIS=${APIS:-callback,callback-deadline,async,async-loop}
TRANSPORTS=${TRANSPORTS:-websocket}
SHORT=${SHORT:-500}
LONG=${LONG:-1500}
REPEATS=${REPEATS:-3}
ACK_TIMEOUT=${ACK_TIMEOUT:-5}
[ "$LONG" -gt "$SHORT" ] || { echo "LONG ($LONG) must be more than SHORT ($SHORT)"; exit 2; }

resolve_bench_clients "$@"
OUT=$(mktemp)
cleanup() {
  stop_bench_sio_server
  stop_echo_server
  rm -f "$OUT"
}
trap cleanup EXIT
start_bench_servers

# Runs a command under callgrind and prints the instructions it collected; on a failure, says
# which command failed and shows the end of its output, and ends the script.
count_instructions() {
  local log status=0
  log=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >"$log" 2>&1 || status=$?
  local count
  count=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log")
  if [ "$status" -ne 0 ] || [ -z "$count" ]; then
    echo "failed (exit $status): $*" >&2
    tail -20 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  echo "$count"
}

# Instructions of one client run of `acks` acks.
instructions() {
  local bin=$1 transport=$2 api=$3 acks=$4
  count_instructions "$bin" client "$PORT" --acks "$acks" --warmup 100 --emits 10 --transports "$transport" \
    --apis "$api" --ack-timeout "$ACK_TIMEOUT"
}

# Instructions of one echo run of `count` round trips (`--hop` or nothing).
echo_instructions() {
  local count=$1 mode=$2
  count_instructions "$WS_BIN" "$ECHO_PORT" --echo-only $mode --round-trips "$count"
}

echo "valgrind $(valgrind --version); $REPEATS x ($LONG - $SHORT round trips); ack timeout $ACK_TIMEOUT s"
for repeat in $(seq "$REPEATS"); do
  for mode in raw hop; do
    flag=""; [ "$mode" = hop ] && flag="--hop"
    short=$(echo_instructions "$SHORT" "$flag")
    long=$(echo_instructions "$LONG" "$flag")
    echo "echo $mode - $(((long - short) / (LONG - SHORT)))" >>"$OUT"
  done
done
for transport in ${TRANSPORTS//,/ }; do
  for api in ${APIS//,/ }; do
    for repeat in $(seq "$REPEATS"); do
      for index in "${!BINS[@]}"; do
        short=$(instructions "${BINS[$index]}" "$transport" "$api" "$SHORT")
        long=$(instructions "${BINS[$index]}" "$transport" "$api" "$LONG")
        echo "$transport $api $index $(((long - short) / (LONG - SHORT)))" >>"$OUT"
      done
    done
  done
done

python3 - "$OUT" "${BINS[@]}" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
bins = sys.argv[2:]
for index, path in enumerate(bins):
    print(f"build {index}: {path}")
echo = {}
for mode in ("raw", "hop"):
    counts = [int(r[3]) for r in rows if r[0] == "echo" and r[1] == mode]
    echo[mode] = statistics.median(counts)
    print(f"{'echo':10} {mode:18} {'':>5} {echo[mode]:>17,.0f} {min(counts):>7,}-{max(counts):<7,}")
# The layers' own: an ack minus the echo with the same thread structure (the callback APIs
# answer on handleQueue, as the hop echo sends from a queue; the async APIs against the raw one).
print(f"{'transport':10} {'api':18} {'build':>5} {'instructions/ack':>17} {'min-max':>15} {'x build 0':>9} "
      f"{'- raw echo':>11} {'- hop echo':>11}")
keys = []
for transport, api, _, _ in rows:
    if transport != "echo" and (transport, api) not in keys:
        keys.append((transport, api))
for transport, api in keys:
    base = None
    for index in range(len(bins)):
        counts = [int(r[3]) for r in rows if r[0] == transport and r[1] == api and r[2] == str(index)]
        median = statistics.median(counts)
        base = base or median
        print(f"{transport:10} {api:18} {index:>5} {median:>17,.0f} {min(counts):>7,}-{max(counts):<7,} {median / base:>9.3f} "
              f"{median - echo['raw']:>11,.0f} {median - echo['hop']:>11,.0f}")
EOF
