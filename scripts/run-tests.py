#!/usr/bin/env python3
"""Runs the package's tests in shards: several test processes at once, each running its suites
one after another (as `swift test --no-parallel` does), so the wall time is the longest shard's.

Why processes and not Swift Testing's in-process parallelism: many loopback suites wait for
real servers, and a few read process-wide figures (open descriptors, resident memory, the event
loop's registrations and timers) that other tests in the same process would disturb. A shard
is its own process with its own descriptors, memory and cooperative thread pool, and each test
starts its own server on a port the kernel picks, so shards never collide.

Suites go to shards longest first (LPT) by the durations in Tests/suite-timings.tsv (a suite
not listed there counts as one second); `--record-timings` rewrites that file from this run.

Nothing can pass unseen (docs/RELIABILITY.md, "What run-tests.py guarantees"):
- a crash fails its shard, unless the crash matches one of KNOWN_TOOLCHAIN_CRASHES below (a
  written-down toolchain bug: its symbol, the upstream report or reproduction, and why this
  package's code is not the cause) and --rerun-toolchain-crashes is given: then the shard is
  rerun alone, and every rerun is counted and named in the summary line;
- every shard has a timeout (--shard-timeout, TEST_SHARD_TIMEOUT; by default computed from the
  suite timings with a floor). On expiry the stack of every thread of the test process is
  printed (gdb, or SIGQUIT to the Swift backtracer without it) and the shard fails;
- a skipped test (a Swift Testing `.enabled(if:)` / `.disabled` trait, or `Test.cancel`) is
  counted as a skip, and its reason printed, in the summary.

usage: scripts/run-tests.py [--shards N] [--filter REGEX] [--record-timings]
                            [--scratch-path DIR] [--Xswiftc=FLAG ...]
                            [--sanitize thread|address --fail-on REGEX]
                            [--rerun-toolchain-crashes [--reruns N]] [--shard-timeout SECONDS]
                            [--allow-stale]
Expects a built test bundle (`swift build --build-tests`, with the same scratch path and flags),
and refuses one older than an object file of the same build (a build that failed or was killed
after compiling leaves the previous bundle behind) unless --allow-stale.
Logs and xUnit results go to <scratch path>/test-results/. Exit status 1 when any shard fails
(a test failed, the process crashed, or it timed out), a test belongs to no shard, or the
filter selects nothing.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMINGS = os.path.join(ROOT, "Tests", "suite-timings.tsv")

# Crashes of the toolchain's own libraries that a shard may be rerun for (with
# --rerun-toolchain-crashes), and only these: any other crash fails the run, even one whose
# crashed thread has no frame of ours (a crash our code causes can surface wholly inside
# libdispatch or FoundationNetworking). An entry needs all three: the symbol or message that
# identifies it (`match`, a regex searched in the crashed thread's frames and the crash lines),
# the upstream report or a reproduction (`upstream`), and why this package's code is not the
# cause (`why_not_ours`). A crash is only ever matched when its crashed thread has no frame of
# ours as well. Add an entry only with that evidence; docs/RELIABILITY.md lists them too.
KNOWN_TOOLCHAIN_CRASHES = [
    {
        "id": "libdispatch-epoll-muxnote",
        "match": r"_dispatch_event_loop_drain|_dispatch_source_refs_finalize_unregistration|_dispatch_event_loop_merge",
        "upstream": "swiftlang/swift-corelibs-libdispatch#949 (open: use-after-free of an epoll muxnote when a "
                    "dispatch source on a descriptor is torn down while its descriptor is closed and reused; "
                    "reproduced there with FileHandle.readabilityHandler alone); swiftlang/swift-corelibs-"
                    "foundation#4791 and #5507 (URLSession._MultiHandle's libcurl sockets, the same family)",
        "why_not_ours": "the package creates no dispatch source and closes only descriptors it opened, once, "
                        "after removing them from its own epoll set (SocketCore.shutdown/endSyscall). The "
                        "test servers' pipes no longer use readabilityHandler (TestSupport/PipeLines.swift), "
                        "so what is left are FoundationNetworking's own sources for libcurl's sockets",
    },
    {
        "id": "foundationnetworking-body-without-transfer",
        "match": r"Received body data, but no transfer in progress",
        "upstream": "reproduced by EventSourceHostileServerTests / URLSessionHTTPTransportTests."
                    "aConsumerThatStopsReadingFailsTyped over URLSession (docs/RELIABILITY.md, \"Found and not "
                    "fixed\"): NativeProtocol.swift's precondition when a task is cancelled while a fast server "
                    "is still sending",
        "why_not_ours": "cancelling a URLSessionTask is public API, allowed at any time; the trap is "
                        "FoundationNetworking's own transfer state, on its own queue, with no frame of ours",
    },
    {
        "id": "foundationnetworking-task-registry",
        "match": r"Trying to access a behaviour for a task that in not in the registry",
        "upstream": "swiftlang/swift-corelibs-foundation#3296 (open: corelibs' own "
                    "test_noDoubleCallbackWhenCancellingAndProtocolFailsFast is XFAIL for this trap, a cancel "
                    "racing the task's own completion) and #3292; docs/RELIABILITY.md, \"FoundationNetworking's "
                    "task-registry trap\" (reproduced: 2 traps in 16 runs of the Apple configuration)",
        "why_not_ours": "URLSessionTask.cancel() is public API, allowed at any time; the bridge makes no cancel "
                        "after the delegate's completion barrier (URLSessionTaskBridge.taskWillComplete), and "
                        "the trap is the registry lookup in a block FoundationNetworking queues on its own work "
                        "queue after the task was removed, with no frame of ours",
    },
]


def test_bundle(build_flags):
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"] + build_flags, cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    bundle = os.path.join(bin_path, "swift-realtimePackageTests.xctest")
    if not os.path.exists(bundle):
        sys.exit(f"run-tests: {bundle} not found: run `swift build --build-tests` first")
    return bundle


def unlinked_object(bundle):
    """An object file of `bundle` compiled after the bundle was linked, or None.

    A build that failed or was killed after compiling (`swift build --build-tests | head` ends
    it when `head` exits) leaves the previous bundle in place, and running it would test old
    code while reporting on the new. A build that succeeds links the bundle after the last of
    its objects. Only the bundle's own objects count (its link list): the tools and benchmarks
    in the same directory are compiled without relinking the tests.
    """
    built = os.path.getmtime(bundle)
    link_list = os.path.join(os.path.dirname(bundle), "swift-realtimePackageTests.product", "Objects.LinkFileList")
    if os.path.exists(link_list):
        with open(link_list) as lines:
            objects = [line.strip().strip('"') for line in lines if line.strip()]
    else:
        objects = [os.path.join(directory, name)
                   for directory, _, names in os.walk(os.path.dirname(bundle)) for name in names]
    newest, newest_time = None, built
    for path in objects:
        # A source's own object; not a module's `Modules/<name>.o`, which a build remakes when
        # a source is touched without a change, and then links nothing.
        if not path.endswith((".swift.o", ".c.o")) or not os.path.exists(path):
            continue
        modified = os.path.getmtime(path)
        if modified > newest_time:
            newest, newest_time = path, modified
    return newest


def list_tests(bundle):
    output = subprocess.run([bundle, "--testing-library", "swift-testing", "--list-tests"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    return [line.strip() for line in output.splitlines() if "/" in line]


def suite_of(test_id):
    return test_id.split("/", 1)[0]


def read_timings():
    timings = {}
    if os.path.exists(TIMINGS):
        with open(TIMINGS) as file:
            for line in file:
                if line.startswith("#") or "\t" not in line:
                    continue
                suite, seconds = line.rstrip("\n").split("\t")
                timings[suite] = float(seconds)
    return timings


def assign(suites, timings, shards):
    """Longest processing time first: each suite to the shard with the least work so far."""
    bins = [[] for _ in range(shards)]
    loads = [0.0] * shards
    for suite in sorted(suites, key=lambda s: (-timings.get(s, 1.0), s)):
        index = loads.index(min(loads))
        bins[index].append(suite)
        loads[index] += timings.get(suite, 1.0)
    return [(suites_, load) for suites_, load in zip(bins, loads) if suites_]


def shard_filter(suites):
    return "^(" + "|".join(re.escape(s) for s in sorted(suites)) + ")/"


def unfinished_tests(log):
    """The tests a log shows started and never ended (its last five): where a process died.
    A parameterized test's case lines are left out; the test itself ends with one line."""
    lines = log.splitlines()
    ended = "\n".join(line for line in lines if "✔ Test" in line or "✘ Test" in line)
    started = [line for line in lines
               if line.startswith("◇ Test ") and " started" in line and not line.startswith(("◇ Test case ", "◇ Test run "))]
    return [line for line in started if line.split(" started")[0][2:] not in ended][-5:]


def crashed_thread_frames(log):
    """The frame lines of the thread the Swift backtracer says crashed ([] when it says none)."""
    lines = log.splitlines()
    where = next((i for i, line in enumerate(lines) if line.endswith(" crashed:")), None)
    if where is None:
        return []
    frames = []
    for line in lines[where + 1:]:
        if line.startswith("Thread ") or line.startswith("Registers") or line.startswith("Images"):
            break
        if re.match(r"\s*\d+ ", line):
            frames.append(line)
    return frames


def ours(frame):
    """Whether a backtrace frame is code of this package (a test bundle, a tool, our sources)."""
    return ROOT in frame or "PackageTests.xctest" in frame or "/Sources/" in frame or "/Tests/" in frame


def crash_lines(log):
    return [line for line in log.splitlines() if "Fatal error" in line or "Program crashed" in line
            or " crashed:" in line or "precondition" in line.lower()]


def known_toolchain_crash(log):
    """The KNOWN_TOOLCHAIN_CRASHES entry a crash log matches, or None. Only a crash whose
    crashed thread the backtracer printed, with no frame of ours on it, can match."""
    frames = crashed_thread_frames(log)
    if not frames or any(ours(frame) for frame in frames):
        return None
    text = "\n".join(frames + crash_lines(log))
    return next((known for known in KNOWN_TOOLCHAIN_CRASHES if re.search(known["match"], text)), None)


def may_rerun(status, log_path, index, args):
    """The reason a shard that ended with `status` is run again, or None: killed by a signal
    (not by our timeout), with --rerun-toolchain-crashes, and the crash is a known one."""
    if status >= 0 or not args.rerun_toolchain_crashes:
        return None
    with open(log_path, errors="replace") as file:
        log = file.read()
    known = known_toolchain_crash(log)
    if known is None:
        frames = crashed_thread_frames(log)
        why = ("a frame of this package's code is on the crashed thread" if any(ours(f) for f in frames)
               else "no crashed thread in the log" if not frames
               else "no frame of ours, but no known toolchain crash matches (scripts/run-tests.py "
                    "KNOWN_TOOLCHAIN_CRASHES)")
        print(f"shard {index}: killed by signal {-status}, not rerun: {why}", flush=True)
        return None
    print(f"shard {index}: a known toolchain crash, {known['id']} ({known['upstream']})", flush=True)
    return known["id"]


def default_timeout(load, args):
    """A shard's time limit: generous, so a loaded machine never trips it, yet finite."""
    if args.shard_timeout:
        return args.shard_timeout
    scale = 10.0 if args.sanitize else 1.0  # ThreadSanitizer runs code 5-15 times slower
    return max(args.timeout_floor * scale, args.timeout_factor * load * scale)


def dump_threads(process, log_path):
    """Every thread's stack of a hung test process, appended to its log and returned."""
    text = ""
    if shutil.which("gdb"):
        try:
            text = subprocess.run(["gdb", "-p", str(process.pid), "-batch", "-nx", "-ex", "set pagination off",
                                   "-ex", "thread apply all bt"],
                                  capture_output=True, text=True, timeout=180).stdout
        except subprocess.TimeoutExpired:
            text = "(gdb did not finish within 180 s)"
    if "Thread " not in text:
        # No gdb (or it failed): the Swift backtracer prints the threads on SIGQUIT.
        process.send_signal(signal.SIGQUIT)
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pass
        text = text + "\n(SIGQUIT sent: the Swift backtracer's output is at the end of the log)"
    with open(log_path, "a") as file:
        file.write("\n\n==== run-tests.py: shard timed out; every thread of the test process ====\n" + text)
    return text


def skipped_tests(log):
    """(test, reason) of every test Swift Testing reported as skipped in a log."""
    skips = []
    for line in log.splitlines():
        match = re.search(r"Test (\S.*?) skipped(?:: \"(.*)\")?\s*$", line)
        if match and not line.startswith(("◇ Test run", "✔ Test run", "✘ Test run")):
            skips.append((match.group(1), match.group(2) or "no reason given"))
    return skips


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, default=int(os.environ.get("TEST_SHARDS", "4")))
    parser.add_argument("--filter", help="only suites whose name matches this regex")
    parser.add_argument("--record-timings", action="store_true")
    parser.add_argument("--scratch-path", default=".build")
    parser.add_argument("--Xswiftc", dest="swiftc", action="append", default=[],
                        help="a flag the bundle was built with (-Xswiftc), given as --Xswiftc=-DFLAG")
    parser.add_argument("--sanitize", help="the sanitizer the bundle was built with (thread, address)")
    parser.add_argument("--fail-on", help="a shard whose log matches this regex fails (a sanitizer's banner)")
    parser.add_argument("--rerun-toolchain-crashes", action="store_true",
                        help="run a shard whose process crashed once more, alone, when the crash matches a "
                             "KNOWN_TOOLCHAIN_CRASHES entry (and its crashed thread has no frame of ours); its "
                             "crash log is kept as shard-N-crash.log and printed, the rerun is counted in the "
                             "summary, and the shard passes only if the rerun passes. Any other crash fails")
    parser.add_argument("--reruns", type=int, default=1,
                        help="how many times a shard is rerun while it keeps crashing a known way (default 1)")
    parser.add_argument("--shard-timeout", type=float,
                        default=float(os.environ["TEST_SHARD_TIMEOUT"]) if os.environ.get("TEST_SHARD_TIMEOUT") else None,
                        help="seconds a shard may run (each rerun too) before its threads are printed and it "
                             "fails (default: max(--timeout-floor, --timeout-factor x the shard's recorded "
                             "seconds), both times 10 under a sanitizer; env TEST_SHARD_TIMEOUT)")
    parser.add_argument("--results-dir",
                        help="where the shard logs and xUnit files go (default <scratch path>/test-results; "
                             "give another when two runs share a scratch path, or they overwrite each other's)")
    parser.add_argument("--allow-stale", action="store_true",
                        help="run the bundle even when one of its objects was compiled after it was linked")
    parser.add_argument("--timeout-floor", type=float, default=600.0)
    parser.add_argument("--timeout-factor", type=float, default=5.0)
    args = parser.parse_args()

    build_flags = ["--scratch-path", args.scratch_path] + [f for flag in args.swiftc for f in ("-Xswiftc", flag)]
    if args.sanitize:
        build_flags.append(f"--sanitize={args.sanitize}")
    bundle = test_bundle(build_flags)
    stale = unlinked_object(bundle)
    if stale and not args.allow_stale:
        sys.exit(f"run-tests: {os.path.relpath(stale, ROOT)} was compiled after {os.path.relpath(bundle, ROOT)} was "
                 "linked (a build failed or was stopped): build again (`swift build --build-tests` with the same "
                 "flags), or pass --allow-stale to run the old bundle")
    results_dir = os.path.abspath(args.results_dir) if args.results_dir else os.path.join(ROOT, args.scratch_path, "test-results")
    tests = list_tests(bundle)
    suites = sorted({suite_of(t) for t in tests})
    if args.filter:
        suites = [s for s in suites if re.search(args.filter, s)]
    timings = read_timings()
    plan = assign(suites, timings, max(1, args.shards))
    if not suites:
        sys.exit("run-tests: no suite matches the filter")
    os.makedirs(results_dir, exist_ok=True)

    # Every selected test must match exactly one shard's filter.
    selected = [t for t in tests if suite_of(t) in set(suites)]
    patterns = [re.compile(shard_filter(s)) for s, _ in plan]
    for test in selected:
        hits = sum(1 for p in patterns if p.search(test))
        if hits != 1:
            sys.exit(f"run-tests: {test} matches {hits} shards")

    # Crashes print a backtrace (the Swift runtime's backtracer; on by default on Linux, set
    # here so an environment that turned it off cannot hide the crashed thread).
    environment = dict(os.environ)
    environment.setdefault("SWIFT_BACKTRACE", "enable=yes")

    children = []

    def kill_group(process):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()

    def interrupted(signum, _frame):
        """Ctrl-C or a CI cancel: the shards run in their own sessions, so end them here."""
        for child in children:
            if child.poll() is None:
                try:
                    os.killpg(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        sys.exit(128 + signum)

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)

    def start(command, log_path):
        log = open(log_path, "w")
        # Its own process group, so a timeout also ends the servers the tests started.
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=environment,
                                   start_new_session=True)
        children.append(process)
        return process, log, time.monotonic()

    def wait(process, log, log_path, started_at, limit, index):
        """The exit status, or None when the shard ran out of time (its threads printed)."""
        try:
            status = process.wait(timeout=max(0.0, started_at + limit - time.monotonic()))
            log.close()
            return status
        except subprocess.TimeoutExpired:
            log.flush()
            print(f"shard {index}: TIMED OUT after {limit:.0f} s (--shard-timeout); still running:\n"
                  + "\n".join(unfinished_tests(open(log_path, errors="replace").read())), flush=True)
            threads = dump_threads(process, log_path)
            print(f"shard {index}: every thread of the test process (pid {process.pid}):\n{threads}", flush=True)
            kill_group(process)
            log.close()
            return None

    started = time.monotonic()
    running = []
    for index, (shard_suites, load) in enumerate(plan):
        log_path = os.path.join(results_dir, f"shard-{index}.log")
        xml_path = os.path.join(results_dir, f"shard-{index}.xml")
        command = [bundle, "--testing-library", "swift-testing", "--no-parallel",
                   "--filter", shard_filter(shard_suites), "--xunit-output", xml_path]
        limit = default_timeout(load, args)
        process, log, started_at = start(command, log_path)
        running.append((index, process, log, started_at, limit, log_path, xml_path, len(shard_suites), command))
        print(f"shard {index}: {len(shard_suites)} suites, about {load:.0f} s, time limit {limit:.0f} s", flush=True)

    failed = []
    reruns = []  # (shard, known crash id) for each rerun
    timed_out = []
    skips = []
    results = {}
    for index, process, log, started_at, limit, log_path, xml_path, count, command in running:
        status = wait(process, log, log_path, started_at, limit, index)
        attempt = 0
        while status is not None and attempt < args.reruns:
            known = may_rerun(status, log_path, index, args)
            if known is None:
                break
            attempt += 1
            suffix = "" if attempt == 1 else f"-{attempt}"
            crash_path = os.path.join(results_dir, f"shard-{index}-crash{suffix}.log")
            os.replace(log_path, crash_path)
            with open(crash_path, errors="replace") as file:
                crash = file.read()
            died = crash_lines(crash)
            print(f"shard {index} ({count} suites) killed by signal {-status}: "
                  f"{'; '.join(died[:3]) or 'no crash line'}; rerun {attempt} of at most {args.reruns}, alone "
                  f"(crash log: {crash_path})", flush=True)
            lines = crash.splitlines()
            where = next((i for i, line in enumerate(lines) if " crashed:" in line), None)
            print("\n".join((lines[where:where + 12] if where is not None else lines[-40:]) + unfinished_tests(crash)),
                  flush=True)
            reruns.append((index, known))
            process, log, started_at = start(command, log_path)
            status = wait(process, log, log_path, started_at, limit, index)
        elapsed = time.monotonic() - started
        with open(log_path, errors="replace") as file:
            text = file.read()
        summary = [line for line in text.splitlines() if "Test run with" in line]
        shard_skips = skipped_tests(text)
        skips.extend(shard_skips)
        print(f"shard {index} ({count} suites) exit {'TIMEOUT' if status is None else status} at {elapsed:.0f} s: "
              f"{summary[-1].strip() if summary else 'no summary'}"
              + (f"; {len(shard_skips)} skipped" if shard_skips else ""), flush=True)
        reports = len(re.findall(args.fail_on, text)) if args.fail_on else 0
        if reports:
            print(f"shard {index}: {reports} reports matching {args.fail_on!r}", flush=True)
            for match in list(re.finditer(args.fail_on, text))[:3]:
                begin = text.rfind("\n", 0, match.start()) + 1
                print("\n".join(text[begin:].splitlines()[:60]), flush=True)
        if status is None:
            timed_out.append(index)
        if status != 0 or reports:
            failed.append(index)
            issues = [line for line in text.splitlines() if "✘" in line or "error:" in line]
            if issues or status is not None:
                print("\n".join(issues[-40:]) if issues else text[-4000:], flush=True)
            if not summary and status is not None:
                # The process died (a trap): name the tests that started and never ended.
                print("running when the process died:\n" + "\n".join(unfinished_tests(text)), flush=True)
            print(f"(full log: {log_path})", flush=True)
        xml_root = None
        if os.path.exists(xml_path):
            try:
                xml_root = ElementTree.parse(xml_path).getroot()
            except ElementTree.ParseError:
                pass  # a shard that died wrote no report; its failure is printed above
        if xml_root is not None:
            for case in xml_root.iter("testcase"):
                suite = case.get("classname")
                results[suite] = results.get(suite, 0.0) + float(case.get("time", "0"))

    total = time.monotonic() - started
    if skips:
        print(f"skipped ({len(skips)}):", flush=True)
        for test, reason in skips:
            print(f"  SKIP {test}: {reason}", flush=True)
    print(f"{len(selected)} tests in {len(suites)} suites, {len(plan)} shards, {total:.0f} s; "
          f"{len(skips)} skipped; {len(reruns)} reruns"
          + (" (" + ", ".join(f"shard {i}: {known}" for i, known in reruns) + ")" if reruns else "")
          + (f"; TIMED OUT shards: {timed_out}" if timed_out else "")
          + (f"; FAILED shards: {failed}" if failed else ""), flush=True)
    if args.record_timings and not failed and not args.filter:
        with open(TIMINGS, "w") as file:
            file.write("# suite\tseconds (scripts/run-tests.py --record-timings; balances the shards)\n")
            for suite in sorted(results):
                file.write(f"{suite}\t{results[suite]:.2f}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
