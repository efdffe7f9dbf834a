#!/usr/bin/env bash
# Installs everything the build, tests, demo and benchmarks need on a fresh machine:
# Debian packages (only when missing), a Python virtualenv under .venv from requirements.txt
# and one under .venv-sio2 (Socket.IO 2.x peer) from requirements-sio2.txt.
# Idempotent: a second run does nothing but check.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
# tinyproxy (HTTP CONNECT) and dante-server (SOCKS5) are the real proxies of the proxy loopback tests.
for pkg in libssl-dev zlib1g-dev pkg-config openssl tinyproxy dante-server; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi

stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing requirements.txt into .venv"
  # An existing .venv (possibly a symlink to a shared one) is updated, not recreated.
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
  echo "$want" > "$stamp"
fi

# The Socket.IO 2.x peer (python-socketio 4 / python-engineio 3) installs modules named like the
# v5 server's, so it gets its own virtualenv.
stamp2=.venv-sio2/.requirements.sha256
want2=$(sha256sum requirements-sio2.txt | cut -d' ' -f1)
if [ ! -x .venv-sio2/bin/python ] || [ "$(cat "$stamp2" 2>/dev/null)" != "$want2" ]; then
  echo "bootstrap: creating .venv-sio2 from requirements-sio2.txt"
  python3 -m venv .venv-sio2
  .venv-sio2/bin/pip install -q --disable-pip-version-check -r requirements-sio2.txt
  echo "$want2" > "$stamp2"
fi
