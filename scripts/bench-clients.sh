# Sourced by the benchmark scripts that count per round trip (not run): the client builds they
# compare, the tool that counts and the two servers they talk to.
#   require_tool NAME   installs the Debian package NAME when its command is missing (on
#                       demand: the build and the tests do not need the counting tools)
#   resolve_bench_clients [SocketIOBenchmark binary...]
#                       sets BINS to the binaries given, or to SocketIOBenchmark built from the
#                       current tree in release mode, and WS_BIN (when not set already) to
#                       WebSocketBenchmark built the same way
#   start_bench_servers starts the Socket.IO benchmark server (PORT) and the WebSocket echo
#                       server (ECHO_PORT); exits the script when one does not start. The
#                       caller's cleanup stops them (stop_bench_sio_server, stop_echo_server).
source scripts/bench-sio-server.sh
source scripts/bench-echo-server.sh

require_tool() {
  command -v "$1" >/dev/null && return
  echo "$(basename "$0"): installing $1"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1"
}

resolve_bench_clients() {
  BINS=("$@")
  if [ ${#BINS[@]} -eq 0 ]; then
    swift build -c release --product SocketIOBenchmark
    BINS=("$(swift build -c release --show-bin-path)/SocketIOBenchmark")
  fi
  WS_BIN=${WS_BIN:-}
  if [ -z "$WS_BIN" ]; then
    # One `--product` per build: SwiftPM keeps only the last of several.
    swift build -c release --product WebSocketBenchmark
    WS_BIN="$(swift build -c release --show-bin-path)/WebSocketBenchmark"
  fi
}

start_bench_servers() {
  start_bench_sio_server
  [ -n "$PORT" ] || { echo "Socket.IO server did not start:"; cat "$SERVER_LOG"; exit 1; }
  start_echo_server
}
