#!/usr/bin/env bash
# Runs test suites under a sanitizer and fails on any report.
#
#   scripts/sanitize.sh thread  [Suite ...]   ThreadSanitizer  (scratch path .build-tsan)
#   scripts/sanitize.sh address [Suite ...]   AddressSanitizer + LeakSanitizer (.build-asan)
#
# With no suite it runs every test target, one `swift test --filter` at a time (a failure in
# one suite does not hide the reports of the next). Each run's output goes to
# $SANITIZE_LOG_DIR (default .build-<san>/logs/<Suite>.log). The script exits non-zero when a
# test fails or a sanitizer reports anything: the sanitizer's own exit code (66) is checked and
# the log is searched for its banner as well, so a report in a child process or after the test
# runner decided its exit status is not missed.
#
# Environment: SANITIZE_JOBS (build jobs, default 2), SANITIZE_NICE (default 5),
# SANITIZE_SHARDS (run the suites in that many processes at once, see below; default 1),
# SANITIZE_SUITE_TIMEOUT (seconds per test target when SANITIZE_SHARDS is 1; default 7200),
# SANITIZE_EXTRA_TSAN / SANITIZE_EXTRA_ASAN (appended to the options).
set -uo pipefail
cd "$(dirname "$0")/.."

kind=${1:?usage: scripts/sanitize.sh thread|address [Suite ...]}
shift
case "$kind" in
  thread)  scratch=${SANITIZE_SCRATCH:-.build-tsan}; banner='WARNING: ThreadSanitizer' ;;
  address) scratch=${SANITIZE_SCRATCH:-.build-asan}; banner='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' ;;
  *) echo "sanitize.sh: unknown sanitizer '$kind' (thread or address)" >&2; exit 2 ;;
esac

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  mapfile -t suites < <(ls -d Tests/*Tests | xargs -n1 basename)
fi

logs=${SANITIZE_LOG_DIR:-$scratch/logs}
mkdir -p "$logs"

# TSan: keep going after a report so one run collects them all, exit 66 if there was any,
# print the second stack of a lock-order inversion. Suppressions: see the file's comments.
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 history_size=4 suppressions=$PWD/scripts/tsan-suppressions.txt ${SANITIZE_EXTRA_TSAN:-}"
# ASan: leaks are checked at exit (LeakSanitizer runs here: the container allows ptrace).
export ASAN_OPTIONS="detect_leaks=1 halt_on_error=1 exitcode=66 detect_stack_use_after_return=0 ${SANITIZE_EXTRA_ASAN:-}"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt exitcode=66"

nice=${SANITIZE_NICE:-5}
start=$(date +%s)
echo "sanitize: building tests with -sanitize=$kind into $scratch"
if ! nice -n "$nice" swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" \
     -j "${SANITIZE_JOBS:-2}" > "$logs/build.log" 2>&1; then
  tail -40 "$logs/build.log"
  echo "sanitize: build failed (log: $logs/build.log)"
  exit 1
fi
echo "sanitize: build took $(( $(date +%s) - start )) s"

# SANITIZE_SHARDS=N: the suites of the given test targets in N processes at once
# (scripts/run-tests.py), each process serial; a report or a failure in any shard fails the run.
if [ "${SANITIZE_SHARDS:-1}" -gt 1 ]; then
  filter="^($(IFS='|'; echo "${suites[*]}"))[.]"
  if nice -n "$nice" ./scripts/run-tests.py --shards "$SANITIZE_SHARDS" --scratch-path "$scratch" \
       --sanitize "$kind" --fail-on "$banner" --filter "$filter"; then
    echo "sanitize: $kind total $(( $(date +%s) - start )) s"
    exit 0
  fi
  echo "sanitize: FAILED (shard logs in $scratch/test-results)"
  exit 1
fi

failed=()
for suite in "${suites[@]}"; do
  t0=$(date +%s)
  log="$logs/$suite.log"
  # A time limit per test target (SANITIZE_SUITE_TIMEOUT seconds, default 7200): a hang fails
  # instead of holding the run forever. (CI's SANITIZE_SHARDS path goes through run-tests.py,
  # whose shard limit also prints every thread of the hung process.)
  timeout -k 30 "${SANITIZE_SUITE_TIMEOUT:-7200}" nice -n "$nice" swift test --skip-build --no-parallel \
    --sanitize="$kind" --scratch-path "$scratch" --filter "^$suite([./]|\$)" > "$log" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ]; then echo "sanitize: $suite TIMED OUT after ${SANITIZE_SUITE_TIMEOUT:-7200} s"; fi
  reports=$(grep -cE "$banner" "$log")
  summary=$(grep -E 'Test run with [0-9]+ tests' "$log" | tail -1 | sed 's/^.*Test run/Test run/')
  echo "sanitize: $suite rc=$rc reports=$reports $(( $(date +%s) - t0 )) s ${summary}"
  # A filter that matches nothing passes silently: count it as a failure.
  if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ] || ! grep -qE 'Test run with [1-9]' "$log"; then
    failed+=("$suite")
    # CI keeps only this script's output, not the logs: print the first reports (each from
    # its banner, 60 lines) and the failed tests, so a rare report can be read where it ran.
    grep -nE "$banner" "$log" | head -3 | cut -d: -f1 | while read -r line; do
      echo "sanitize: ---- $suite, report at $log:$line ----"
      sed -n "${line},$((line + 60))p" "$log"
    done
    grep -E '✘ Test .*(failed|recorded an issue)' "$log" | head -10 | sed "s/^/sanitize: $suite: /"
  fi
done

echo "sanitize: $kind total $(( $(date +%s) - start )) s"
if [ ${#failed[@]} -ne 0 ]; then
  echo "sanitize: FAILED: ${failed[*]} (logs in $logs)"
  exit 1
fi
echo "sanitize: no reports, every test passed"
