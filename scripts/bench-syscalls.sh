#!/usr/bin/env bash
# System calls per round trip, counted by strace, for the raw WebSocket echo (WebSocketBenchmark
# --echo-only, and --hop: the callback API's thread structure) and for Socket.IO emitWithAck
# round trips of one or more builds of SocketIOBenchmark: how many times a round trip enters
# the kernel, per call (epoll_wait, recvfrom, sendto, futex for thread hand-offs, read/write
# of the loop's eventfd), a figure that CPU time per ack hides in its noise.
#
#   scripts/bench-syscalls.sh [SocketIOBenchmark binary...]
#
# Without binaries, builds the current tree in release mode; WS_BIN names a WebSocketBenchmark
# (default: built from the current tree). Each run is counted twice (SHORT and LONG round
# trips, after the same warm-up) and the difference divided by LONG - SHORT is the count per
# round trip, so connecting and the process's start and exit cancel out. futex and the eventfd
# calls depend on whether a thread was already awake, so they move a little between runs;
# epoll_wait, recvfrom and sendto do not.
#
# APIS (default callback,async,async-loop), TRANSPORTS (default websocket,polling), SHORT
# (500), LONG (1500), ACK_TIMEOUT (5 s).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || ./scripts/bootstrap.sh
source scripts/bench-clients.sh
require_tool strace
APIS=${APIS:-callback,async,async-loop}
TRANSPORTS=${TRANSPORTS:-websocket,polling}
SHORT=${SHORT:-500}
LONG=${LONG:-1500}
ACK_TIMEOUT=${ACK_TIMEOUT:-5}
[ "$LONG" -gt "$SHORT" ] || { echo "LONG ($LONG) must be more than SHORT ($SHORT)"; exit 2; }

resolve_bench_clients "$@"
SHORT_COUNTS=$(mktemp)
LONG_COUNTS=$(mktemp)
cleanup() {
  stop_bench_sio_server
  stop_echo_server
  rm -f "$SHORT_COUNTS" "$LONG_COUNTS"
}
trap cleanup EXIT
start_bench_servers

# `count LABEL COMMAND...`: COMMAND run with SHORT and then LONG in place of `@N@`.
count() {
  local label=$1
  shift
  local status=0
  strace -f -c -o "$SHORT_COUNTS" "${@//@N@/$SHORT}" >/dev/null 2>&1 || status=$?
  strace -f -c -o "$LONG_COUNTS" "${@//@N@/$LONG}" >/dev/null 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "failed (exit $status): $*" >&2
    exit 1
  fi
  python3 - "$SHORT_COUNTS" "$LONG_COUNTS" "$label" "$((LONG - SHORT))" <<'EOF'
import sys
def calls(path):
    counts = {}
    for line in open(path):
        fields = line.split()
        # "% time seconds usecs/call calls [errors] syscall"
        if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
            counts[fields[-1]] = int(fields[3])
    return counts
short, long_, label, rounds = calls(sys.argv[1]), calls(sys.argv[2]), sys.argv[3], int(sys.argv[4])
per = {name: (long_.get(name, 0) - short.get(name, 0)) / rounds for name in set(short) | set(long_)}
shown = {name: value for name, value in per.items() if abs(value) >= 0.01}
total = sum(shown.values())
print(f"{label:42} {total:6.2f}  " + "  ".join(f"{name} {value:.2f}" for name, value in sorted(shown.items())))
EOF
}

echo "strace $(strace -V | head -1 | awk '{print $NF}'); ($LONG - $SHORT round trips); ack timeout $ACK_TIMEOUT s"
echo "per round trip                             total   per call"
count "echo raw" "$WS_BIN" "$ECHO_PORT" --echo-only --round-trips @N@
count "echo hop" "$WS_BIN" "$ECHO_PORT" --echo-only --hop --round-trips @N@
for transport in ${TRANSPORTS//,/ }; do
  for api in ${APIS//,/ }; do
    for index in "${!BINS[@]}"; do
      count "$transport $api (build $index)" "${BINS[$index]}" client "$PORT" --acks @N@ --warmup 100 --emits 10 \
        --transports "$transport" --apis "$api" --ack-timeout "$ACK_TIMEOUT"
    done
  done
done
for index in "${!BINS[@]}"; do echo "build $index: ${BINS[$index]}"; done
