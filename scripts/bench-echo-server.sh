# Sourced by the benchmark scripts (not run): the tests' WebSocket echo server.
#   start_echo_server   starts Tests/Servers/ws_echo_server.py (no compression); sets
#                       ECHO_SERVER (its pid), ECHO_LOG (its output) and ECHO_PORT; exits the
#                       script when it does not start
#   stop_echo_server    stops it and removes its log (safe before a start, and twice)
ECHO_SERVER=""
ECHO_LOG=""
ECHO_PORT=""

start_echo_server() {
  ECHO_LOG=$(mktemp)
  .venv/bin/python -u Tests/Servers/ws_echo_server.py --no-compression >"$ECHO_LOG" 2>&1 &
  ECHO_SERVER=$!
  for _ in $(seq 200); do grep -q '^PORT=' "$ECHO_LOG" && break; sleep 0.05; done
  ECHO_PORT=$(sed -n 's/^PORT=//p' "$ECHO_LOG" | head -1)
  [ -n "$ECHO_PORT" ] || { echo "echo server did not start:"; cat "$ECHO_LOG"; exit 1; }
}

stop_echo_server() {
  if [ -n "$ECHO_SERVER" ]; then
    kill "$ECHO_SERVER" 2>/dev/null || true
    wait "$ECHO_SERVER" 2>/dev/null || true
    ECHO_SERVER=""
  fi
  if [ -n "$ECHO_LOG" ]; then rm -f "$ECHO_LOG"; fi
}
