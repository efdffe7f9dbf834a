#!/usr/bin/env bash
# Every benchmark in one run (what `make bench` runs): the WebSocket, SSE and Socket.IO
# benchmarks side by side with their Python peers, and the kernel floor of a loopback round
# trip (scripts/kernel-floor.sh) before, between and after them, so the CPU per round trip
# reads against the physical limit measured under the same load. Each script's raw output goes
# to bench-results/<name>.txt (and to the terminal); then scripts/bench_report.py parses them
# and prints the tables of medians and ratios and draws bench-results/*.png.
#
#   scripts/bench.sh
#
# Environment:
#   BENCH_UPDATE_DOCS=1   also copy the charts to docs/benchmarks/ and rewrite the generated
#                         part of docs/BENCHMARKS.md (otherwise no tracked file changes)
#   BENCH_NOTE="..."      a sentence about the run's conditions, shown in the report
#   BENCH_OUT=DIR         results folder (default bench-results)
#   BENCH_WS_ARGS, BENCH_SSE_ARGS, BENCH_SIO_ARGS, BENCH_FLOOR_ARGS
#                         arguments passed to scripts/bench-websocket.sh, bench-sse.sh,
#                         bench-socketio.sh, kernel-floor.sh (default: theirs)
#
# Exits non-zero when a benchmark failed (its script's status, or a failure it printed); an
# output the report cannot parse is named in the report but does not fail the run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench-results}
./scripts/bootstrap.sh >/dev/null || exit 1
# matplotlib for the charts, pinned (requirements-bench.txt), installed into .venv on demand.
pinned=$(sed -n 's/^matplotlib==//p' requirements-bench.txt)
if [ "$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("matplotlib"))' 2>/dev/null)" != "$pinned" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-bench.txt || exit 1
fi

rm -rf "$OUT"
mkdir -p "$OUT"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- Sources Tools Package.swift 2>/dev/null || echo ' (with local changes)')"
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "cores: $(nproc)"
  echo "kernel: $(uname -sr)"
  echo "swift: $(swift --version 2>/dev/null | head -1)"
  echo "python: $(.venv/bin/python --version 2>&1)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "note: ${BENCH_NOTE:-}"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

# run NAME SCRIPT [ARGS...]: the script's output into $OUT/NAME.txt, its status into status.txt.
run() {
  local name=$1
  shift
  echo
  echo "=== $name: $* ==="
  "$@" 2>&1 | tee "$OUT/$name.txt"
  local status=${PIPESTATUS[0]}
  echo "$name $status" >> "$OUT/status.txt"
  [ "$status" = 0 ] || echo "=== $name exited with status $status ==="
}

# Word splitting of the BENCH_*_ARGS variables is intended.
# shellcheck disable=SC2086
{
  run kernel-floor-1 ./scripts/kernel-floor.sh ${BENCH_FLOOR_ARGS:-}
  run websocket ./scripts/bench-websocket.sh ${BENCH_WS_ARGS:-}
  run kernel-floor-2 ./scripts/kernel-floor.sh ${BENCH_FLOOR_ARGS:-}
  run sse ./scripts/bench-sse.sh ${BENCH_SSE_ARGS:-}
  run kernel-floor-3 ./scripts/kernel-floor.sh ${BENCH_FLOOR_ARGS:-}
  run socketio ./scripts/bench-socketio.sh ${BENCH_SIO_ARGS:-}
  run kernel-floor-4 ./scripts/kernel-floor.sh ${BENCH_FLOOR_ARGS:-}
}
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"

echo
report_args=("$OUT")
[ "${BENCH_UPDATE_DOCS:-0}" = 1 ] && report_args+=(--update-docs docs)
.venv/bin/python scripts/bench_report.py "${report_args[@]}"
