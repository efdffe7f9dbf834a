# Sourced by the Socket.IO benchmark scripts (not run): the python-socketio benchmark server.
#   start_bench_sio_server   starts Tests/Servers/bench_sio_server.py; sets SERVER (its pid),
#                            SERVER_LOG (its output) and PORT (empty if it did not start)
#   stop_bench_sio_server    stops it and removes its log (safe before a start, and twice)
SERVER=""
SERVER_LOG=""
PORT=""

start_bench_sio_server() {
  SERVER_LOG=$(mktemp)
  .venv/bin/python -u Tests/Servers/bench_sio_server.py >"$SERVER_LOG" 2>&1 &
  SERVER=$!
  for _ in $(seq 200); do grep -q PORT= "$SERVER_LOG" && break; sleep 0.05; done
  PORT=$(grep -m1 PORT= "$SERVER_LOG" | cut -d= -f2 || true)
}

stop_bench_sio_server() {
  if [ -n "$SERVER" ]; then
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
  if [ -n "$SERVER_LOG" ]; then rm -f "$SERVER_LOG"; fi
}
