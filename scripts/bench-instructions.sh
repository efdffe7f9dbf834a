#!/usr/bin/env bash
# Client instructions per Socket.IO emitWithAck round trip, counted by valgrind (callgrind's Ir),
# for one or more builds of SocketIOBenchmark: a figure that does not move with the machine's
# load, so a change of a few percent shows in one run (CPU time per ack varies by 10% or more
# from one run to the next here).
#
#   scripts/bench-instructions.sh [SocketIOBenchmark binary...]
#
# Without binaries, builds the current tree in release mode. For each binary, API and transport,
# the client runs twice (SHORT and LONG acks, after the same warm-up) and the difference divided
# by LONG - SHORT is the count per ack: connecting, the warm-up and the process's start and exit
# cancel out. REPEATS runs of each give the median (min-max). The first binary is the baseline
# of the ratios.
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
command -v valgrind >/dev/null || { echo "valgrind is missing: scripts/bootstrap.sh installs it"; exit 1; }
APIS=${APIS:-callback,callback-deadline,async,async-loop}
TRANSPORTS=${TRANSPORTS:-websocket}
SHORT=${SHORT:-500}
LONG=${LONG:-1500}
REPEATS=${REPEATS:-3}
ACK_TIMEOUT=${ACK_TIMEOUT:-5}

BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  swift build -c release --product SocketIOBenchmark
  BINS=("$(swift build -c release --show-bin-path)/SocketIOBenchmark")
fi

source scripts/bench-sio-server.sh
trap stop_bench_sio_server EXIT
start_bench_sio_server
[ -n "$PORT" ] || { echo "Socket.IO server did not start:"; cat "$SERVER_LOG"; exit 1; }

# Instructions of one client run of `acks` acks.
instructions() {
  local bin=$1 transport=$2 api=$3 acks=$4
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" client "$PORT" --acks "$acks" --warmup 100 \
    --emits 10 --transports "$transport" --apis "$api" --ack-timeout "$ACK_TIMEOUT" 2>&1 >/dev/null \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

OUT=$(mktemp)
trap 'stop_bench_sio_server; rm -f "$OUT"' EXIT
echo "valgrind $(valgrind --version); $REPEATS x ($LONG - $SHORT acks); ack timeout $ACK_TIMEOUT s"
for transport in ${TRANSPORTS//,/ }; do
  for api in ${APIS//,/ }; do
    for repeat in $(seq "$REPEATS"); do
      for index in "${!BINS[@]}"; do
        short=$(instructions "${BINS[$index]}" "$transport" "$api" "$SHORT")
        long=$(instructions "${BINS[$index]}" "$transport" "$api" "$LONG")
        [ -n "$short" ] && [ -n "$long" ] || { echo "no count for ${BINS[$index]} $transport $api"; exit 1; }
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
print(f"{'transport':10} {'api':18} {'build':>5} {'instructions/ack':>17} {'min-max':>15} {'x build 0':>9}")
keys = []
for transport, api, _, _ in rows:
    if (transport, api) not in keys:
        keys.append((transport, api))
for transport, api in keys:
    base = None
    for index in range(len(bins)):
        counts = [int(r[3]) for r in rows if r[0] == transport and r[1] == api and int(r[2]) == index]
        median = statistics.median(counts)
        base = base or median
        print(f"{transport:10} {api:18} {index:>5} {median:>17,.0f} {min(counts):>7,}-{max(counts):<7,} {median / base:>9.3f}")
EOF
