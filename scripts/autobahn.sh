#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing-server cases (kosoku, from .venv) against the native
# WebSocket client and prints counts by behavior per section.
#
#   scripts/autobahn.sh                 every case (compression cases 12.* and 13.* included)
#   AUTOBAHN_EXCLUDE='12.* 13.*' scripts/autobahn.sh   skip cases (kosoku -x globs)
#   AUTOBAHN_REQUIRE=1-10,12-13        sections whose failures make the script exit non-zero
#
# Reports go to reports/autobahn/ (index.json and the per-case files).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/kosoku ] || ./scripts/bootstrap.sh

outdir=${AUTOBAHN_OUTDIR:-reports/autobahn}
agent=swift-realtime
require=${AUTOBAHN_REQUIRE:-1-10,12-13}
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

swift build -c release --product AutobahnClient
client=$(swift build -c release --show-bin-path)/AutobahnClient

rm -rf "$outdir"
mkdir -p "$outdir"
excludes=()
for pattern in ${AUTOBAHN_EXCLUDE:-}; do excludes+=(-x "$pattern"); done
.venv/bin/kosoku -m fuzzingserver -o "$outdir" "${excludes[@]}" "127.0.0.1:$port" > "$outdir/kosoku.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

"$client" run "ws://127.0.0.1:$port" --agent "$agent" --compression
# kosoku writes the report after /updateReports (hundreds of files): wait for index.json.
for _ in $(seq 1 600); do [ -f "$outdir/index.json" ] && break; sleep 0.2; done
sleep 1
"$client" summarize "$outdir/index.json" --agent "$agent" --require "$require"
