#!/usr/bin/env bash
# The main job: starts the bundled local server on loopback, runs the demo, stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "The demo (SocketIOConcurrency seed flow) is not implemented yet; see README." >&2
exit 1
