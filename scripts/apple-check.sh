#!/usr/bin/env bash
# Compiles every target of the package for iOS against the real SDK's interfaces
# (MODE=objects INCLUDE_TESTS=1: libraries, tools and tests, with arm64 object code) at each
# triple given. The first triple must be the iOS minimum that Package.swift declares: the
# script checks that, so the two cannot drift apart.
#
# usage: scripts/apple-check.sh APPLE_SDK_DIR TRIPLE...
# Exits 0 when every triple compiles with no error; skips (exit 0, reason printed) only when
# APPLE_SDK_DIR is missing, as in a user's clone.
set -euo pipefail
cd "$(dirname "$0")/.."
sdk_dir=$1; shift
if [ ! -x "$sdk_dir/apple-typecheck.sh" ]; then
    echo "apple-check: SKIPPED: $sdk_dir/apple-typecheck.sh not found (the iOS SDK interfaces are not in this clone; CI has them)"
    exit 0
fi
declared=$(sed -n 's/.*\.iOS(\.v\([0-9_]*\)).*/\1/p' Package.swift | head -1 | tr _ .)
first=${1#arm64-apple-ios}
if [ "$declared" != "$first" ] && [ "$declared.0" != "$first" ]; then
    echo "apple-check: the first triple ($1) is not Package.swift's iOS minimum ($declared)" >&2
    exit 1
fi
MODE=objects INCLUDE_TESTS=1 "$sdk_dir/apple-typecheck.sh" . "$@"
