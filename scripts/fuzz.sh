#!/usr/bin/env bash
# Coverage-guided fuzzing of every decoder that reads untrusted bytes (libFuzzer + AddressSanitizer).
#
#   scripts/fuzz.sh                     build and run every target, 60 s each
#   scripts/fuzz.sh TARGET [SECONDS]    build and run one target (TARGET=all for every target)
#   scripts/fuzz.sh --list              the target names
#   scripts/fuzz.sh --build [TARGET]    build only
#   scripts/fuzz.sh --replay [TARGET]   run each seed corpus file once (no fuzzing)
#   FUZZ_JOBS=2 scripts/fuzz.sh all 600 run two targets at a time
#   FUZZ_ARGS='-max_len=512' ...        extra libFuzzer flags
#   FUZZ_OUT=DIR ...                    write to DIR instead of .build/fuzz
#
# Build: swiftc directly, not SwiftPM. Each sans-I/O library (RealtimeTransport, RealtimeEncoding, HTTP1Codec, WebSocketCodec,
# EngineIOProtocol, SocketIOProtocol, SSEProtocol) is compiled once into its own module with
# `-sanitize=fuzzer,address` (coverage instrumentation plus ASan), and each target's
# Fuzz/<Target>/main.swift is compiled and linked against the modules it imports. The few
# decoders that live in I/O targets (the Set-Cookie parser in RealtimeHTTP, the data-only SSE
# parser in EventSource) are compiled straight into the target's module from their source
# files, so none of the I/O stack (OpenSSL, event loop) is built. `-package-name` keeps the
# `package` API visible; `-enable-testing` lets a target reuse a unit-test oracle. A full
# build of all targets takes about a minute on this machine.
#
# Each run writes to .build/fuzz/ (git-ignored): the working corpus per target
# (corpus/<target>/, seeded from Fuzz/Corpus/<target>/, with Fuzz/Dictionaries/<target>.dict
# tokens when present), crash/timeout/leak artifacts
# (artifacts/<target>/) and the libFuzzer log (logs/<target>.log). The final line per target
# gives executions, cov (edges) and ft (features) from libFuzzer's last stats line.
# The whole script is one block, so bash parses it before running (editing it during a run is safe).
{
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${FUZZ_OUT:-$root/.build/fuzz}
mkdir -p "$out/modules" "$out/bin" "$out/logs"

# target name | modules it imports | extra source files compiled into the target module
targets=(
  "http-response|RealtimeSync RealtimeTime RealtimeTransport RealtimeEncoding HTTP1Codec|"
  "http-content|RealtimeSync RealtimeTime RealtimeTransport RealtimeEncoding HTTP1Codec|"
  "websocket-frames|RealtimeEncoding WebSocketCodec|"
  "websocket-inflate|RealtimeEncoding WebSocketCodec|"
  "engineio-packet|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol|"
  "polling-v4|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol|"
  "polling-v3|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol|"
  "engineio-handshake|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol|"
  "json|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol|"
  "socketio-packet|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol SocketIOProtocol|"
  "socketio-msgpack|RealtimeSync RealtimeTime RealtimeEncoding EngineIOProtocol SocketIOProtocol|"
  "sse|SSEProtocol|Tests/SSEProtocolTests/ReferenceEventStreamParser.swift"
  "sse-dataonly|SSEProtocol|Sources/EventSource/DataOnlyEventParser.swift Sources/EventSource/ServerEvent.swift Sources/EventSource/EVEvent.swift"
  "set-cookie|RealtimeSync RealtimeTime RealtimeTransport RealtimeEncoding HTTP1Codec|Sources/RealtimeHTTP/HTTP/HTTPCookie.swift Sources/RealtimeHTTP/HTTP/HTTPCookie+Parsing.swift"
)

swift_flags=(-parse-as-library -O -g -sanitize=fuzzer,address -swift-version 6
             -enable-upcoming-feature InternalImportsByDefault -package-name swift_realtime
             -I "$out/modules" -I "$root/Sources/CRealtimeZlib" -module-cache-path "$out/module-cache")

field() { local IFS='|'; read -r -a parts <<< "$1"; echo "${parts[$2]:-}"; }

names() { for t in "${targets[@]}"; do field "$t" 0; done; }

spec() {
  for t in "${targets[@]}"; do [ "$(field "$t" 0)" = "$1" ] && { echo "$t"; return; }; done
  echo "unknown fuzz target '$1' (scripts/fuzz.sh --list)" >&2; exit 2
}

# Builds one library module unless its object is newer than its sources and the modules
# built before it (a target lists its modules in dependency order).
build_module() {
  local module=$1 obj=$out/modules/$1.o; shift
  local sources; sources=$(find "Sources/$module" -name '*.swift' | sort)
  if [ -f "$obj" ] && [ -z "$(find "Sources/$module" "$@" -newer "$obj" | head -1)" ]; then
    return
  fi
  echo "fuzz: building module $module" >&2
  rm -f "$obj"
  # shellcheck disable=SC2086
  swiftc "${swift_flags[@]}" -enable-testing -wmo -c -module-name "$module" -emit-module \
    -emit-module-path "$out/modules/$module.swiftmodule" -o "$obj" $sources 2>&1 \
    | grep -v "Cannot export local symbol" >&2 || true
  [ -f "$obj" ] || { echo "fuzz: building $module failed" >&2; exit 1; }
}

# Concurrent runs (FUZZ_JOBS, or several scripts) build one at a time.
build_target() {
  exec 9> "$out/build.lock"
  flock 9
  build_target_locked "$1"
  flock -u 9
}

build_target_locked() {
  local name=$1 line modules extra bin objs=()
  line=$(spec "$name")
  modules=$(field "$line" 1)
  extra=$(field "$line" 2)
  bin=$out/bin/$name
  for m in $modules; do build_module "$m" "${objs[@]}"; objs+=("$out/modules/$m.o"); done
  local newer=""
  if [ -f "$bin" ]; then
    # shellcheck disable=SC2086
    newer=$(find "Fuzz/$name" Fuzz/Support $extra "${objs[@]}" -newer "$bin" 2>/dev/null | head -1)
  fi
  if [ -f "$bin" ] && [ -z "$newer" ]; then return; fi
  echo "fuzz: building target $name" >&2
  local link=()
  [[ " $modules " == *" WebSocketCodec "* || " $modules " == *" HTTP1Codec "* ]] && link+=(-lz)
  rm -f "$bin"
  # shellcheck disable=SC2086
  swiftc "${swift_flags[@]}" -module-name "Fuzz_${name//-/_}" -o "$bin" \
    "Fuzz/$name/main.swift" Fuzz/Support/FuzzSupport.swift $extra "${objs[@]}" "${link[@]}" 2>&1 \
    | grep -v "Cannot export local symbol" >&2 || true
  [ -x "$bin" ] || { echo "fuzz: building $name failed" >&2; exit 1; }
}

# Prints "target: N execs, cov C, ft F, corpus K files (B bytes), T s, findings" for one log.
summary() {
  local name=$1 log=$out/logs/$1.log seconds=$2 stats
  stats=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  local execs cov ft corp
  execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<< "$stats")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<< "$stats")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<< "$stats")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[bKM]*).*/\1/p' <<< "$stats")
  local finds; finds=$(find "$out/artifacts/$name" -type f 2>/dev/null | wc -l)
  printf 'fuzz: %-20s %10s execs  cov %5s  ft %6s  corpus %-12s %4ss  artifacts %s\n' \
    "$name" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$seconds" "$finds"
}

run_target() {
  local name=$1 seconds=$2
  build_target "$name"
  mkdir -p "$out/corpus/$name" "$out/artifacts/$name"
  local seeds=() dict=()
  [ -d "Fuzz/Corpus/$name" ] && seeds+=("Fuzz/Corpus/$name")
  [ -f "Fuzz/Dictionaries/$name.dict" ] && dict+=(-dict="Fuzz/Dictionaries/$name.dict")
  local status=0 started=$SECONDS
  # shellcheck disable=SC2086
  SWIFT_BACKTRACE=enable=no nice -n 10 "$out/bin/$name" "$out/corpus/$name" "${seeds[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$name/" "${dict[@]}" ${FUZZ_ARGS:-} > "$out/logs/$name.log" 2>&1 || status=$?
  summary "$name" "$((SECONDS - started))"
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $name FAILED (exit $status); see $out/logs/$name.log and $out/artifacts/$name/" >&2
    grep -E 'ERROR: |Fatal error|SUMMARY' "$out/logs/$name.log" | head -5 >&2 || true
    return 1
  fi
}

replay_target() {
  local name=$1
  build_target "$name"
  [ -d "Fuzz/Corpus/$name" ] || { echo "fuzz: no seed corpus for $name" >&2; return 1; }
  local files; files=$(find "Fuzz/Corpus/$name" -type f | wc -l)
  if ! SWIFT_BACKTRACE=enable=no "$out/bin/$name" -runs=0 -timeout=10 "Fuzz/Corpus/$name" > "$out/logs/$name.replay.log" 2>&1; then
    echo "fuzz: replay of $name FAILED; see $out/logs/$name.replay.log" >&2
    return 1
  fi
  echo "fuzz: replayed $files seed inputs of $name"
}

mode=run
case "${1:-}" in
  --list) names; exit 0 ;;
  --build) mode=build; shift ;;
  --replay) mode=replay; shift ;;
esac
target=${1:-all}
seconds=${2:-60}
if [ "$target" = all ]; then selected=$(names); else spec "$target" > /dev/null; selected=$target; fi

failed=0
if [ "$mode" = build ]; then
  for t in $selected; do build_target "$t"; done
elif [ "$mode" = replay ]; then
  for t in $selected; do replay_target "$t" || failed=1; done
else
  # Build everything first (sequentially), then run FUZZ_JOBS targets at a time.
  for t in $selected; do build_target "$t"; done
  jobs=${FUZZ_JOBS:-1}
  pids=()
  for t in $selected; do
    run_target "$t" "$seconds" &
    pids+=($!)
    if [ "${#pids[@]}" -ge "$jobs" ]; then
      wait "${pids[0]}" || failed=1
      pids=("${pids[@]:1}")
    fi
  done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
fi
exit $failed
}
