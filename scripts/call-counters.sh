#!/usr/bin/env bash
# Builds scripts/call-counters.c into a shared object and prints its path. Run a benchmark
# with LD_PRELOAD=<that path> and it reports allocations and mutex acquisitions per ack.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=.build/call-counters.so
mkdir -p .build
if [ ! -f "$OUT" ] || [ scripts/call-counters.c -nt "$OUT" ]; then
  cc -O2 -shared -fPIC -o "$OUT" scripts/call-counters.c -ldl
fi
echo "$PWD/$OUT"
