#!/usr/bin/env bash
# The main job (`make demo`): the SocketIOConcurrency seed's flow against the bundled local
# python-socketio server. Builds the demo, starts Tests/Servers/demo_server.py on loopback
# (the kernel picks a free port), runs the demo with that port, stops the server, and exits
# with the demo's status. `make demo` runs the bootstrap (.venv) first.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${REALTIME_PYTHON:-.venv/bin/python}"
if [[ ! -x "$python" ]]; then
    echo "demo: $python not found; run 'make bootstrap' (or use 'make demo')" >&2
    exit 1
fi

echo "demo: building RealtimeDemo" >&2
swift build --product RealtimeDemo >&2
demo="$(swift build --show-bin-path)/RealtimeDemo"

workdir="$(mktemp -d)"
server_pid=""
stop_server() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

"$python" -u Tests/Servers/demo_server.py --port 0 >"$workdir/server.out" 2>"$workdir/server.err" &
server_pid=$!

port=""
for _ in $(seq 1 300); do
    port="$(sed -n 's/^PORT=//p' "$workdir/server.out" | head -n 1)"
    [[ -n "$port" ]] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "demo: the server exited before listening:" >&2
        cat "$workdir/server.err" >&2
        exit 1
    fi
    sleep 0.1
done
if [[ -z "$port" ]]; then
    echo "demo: the server printed no PORT= line within 30 s" >&2
    exit 1
fi
echo "demo: demo_server.py listening on 127.0.0.1:$port" >&2

status=0
"$demo" --port "$port" || status=$?
if [[ $status -ne 0 ]]; then
    echo "demo: FAILED (exit $status); server log:" >&2
    cat "$workdir/server.err" >&2
fi
exit "$status"
