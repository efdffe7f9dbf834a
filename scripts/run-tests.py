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

usage: scripts/run-tests.py [--shards N] [--filter REGEX] [--record-timings]
                            [--scratch-path DIR] [--Xswiftc=FLAG ...]
                            [--sanitize thread|address --fail-on REGEX]
Expects a built test bundle (`swift build --build-tests`, with the same scratch path and flags).
Logs and xUnit results go to <scratch path>/test-results/. Exit status 1 when any shard fails,
a test belongs to no shard, or the filter selects nothing.
"""

import argparse
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMINGS = os.path.join(ROOT, "Tests", "suite-timings.tsv")


def test_bundle(build_flags):
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"] + build_flags, cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    bundle = os.path.join(bin_path, "swift-realtimePackageTests.xctest")
    if not os.path.exists(bundle):
        sys.exit(f"run-tests: {bundle} not found: run `swift build --build-tests` first")
    return bundle


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


def may_rerun(status, log_path, index, args):
    """Whether a shard that ended with `status` is run again: killed by a signal, and with
    --rerun-toolchain-crashes only when the crashed thread has no frame of ours."""
    if status >= 0:
        return False
    if args.rerun_crashed:
        return True
    if not args.rerun_toolchain_crashes:
        return False
    with open(log_path, errors="replace") as file:
        frames = crashed_thread_frames(file.read())
    if frames and not any(ours(frame) for frame in frames):
        print(f"shard {index}: the crashed thread has no frame of this package's code:", flush=True)
        return True
    return False


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
    parser.add_argument("--rerun-crashed", action="store_true",
                        help="run a shard whose process a signal killed once more, alone; its crash log is "
                             "kept as shard-N-crash.log and printed, and the shard passes only if the rerun "
                             "passes (for the Apple configuration on Linux, whose FoundationNetworking and "
                             "libdispatch crash on their own now and then; see docs/RELIABILITY.md)")
    parser.add_argument("--reruns", type=int, default=1,
                        help="how many times a crashed shard is rerun while it keeps crashing the way "
                             "--rerun-crashed / --rerun-toolchain-crashes allow (default 1)")
    parser.add_argument("--rerun-toolchain-crashes", action="store_true",
                        help="like --rerun-crashed, but only for a crash whose crashed thread has no frame of "
                             "this package's code (libdispatch or FoundationNetworking alone); a crash with a "
                             "frame of ours fails at once")
    args = parser.parse_args()

    build_flags = ["--scratch-path", args.scratch_path] + [f for flag in args.swiftc for f in ("-Xswiftc", flag)]
    if args.sanitize:
        build_flags.append(f"--sanitize={args.sanitize}")
    bundle = test_bundle(build_flags)
    results_dir = os.path.join(ROOT, args.scratch_path, "test-results")
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

    started = time.monotonic()
    running = []
    for index, (shard_suites, load) in enumerate(plan):
        log_path = os.path.join(results_dir, f"shard-{index}.log")
        xml_path = os.path.join(results_dir, f"shard-{index}.xml")
        log = open(log_path, "w")
        command = [bundle, "--testing-library", "swift-testing", "--no-parallel",
                   "--filter", shard_filter(shard_suites), "--xunit-output", xml_path]
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        running.append((index, process, log, log_path, xml_path, len(shard_suites), load, command))
        print(f"shard {index}: {len(shard_suites)} suites, about {load:.0f} s", flush=True)

    failed = []
    rerun = []
    results = {}
    for index, process, log, log_path, xml_path, count, _, command in running:
        status = process.wait()
        log.close()
        attempt = 0
        while attempt < args.reruns and may_rerun(status, log_path, index, args):
            attempt += 1
            suffix = "" if attempt == 1 else f"-{attempt}"
            crash_path = os.path.join(results_dir, f"shard-{index}-crash{suffix}.log")
            os.replace(log_path, crash_path)
            with open(crash_path, errors="replace") as file:
                crash = file.read()
            died = [line for line in crash.splitlines() if "Fatal error" in line or "Program crashed" in line
                    or " crashed:" in line]
            print(f"shard {index} ({count} suites) killed by signal {-status}: "
                  f"{'; '.join(died[:3]) or 'no crash line'}; rerunning it alone (crash log: {crash_path})",
                  flush=True)
            lines = crash.splitlines()
            where = next((i for i, line in enumerate(lines) if " crashed:" in line), None)
            print("\n".join((lines[where:where + 8] if where is not None else lines[-40:]) + unfinished_tests(crash)),
                  flush=True)
            if index not in rerun:
                rerun.append(index)
            with open(log_path, "w") as log:
                status = subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
        elapsed = time.monotonic() - started
        with open(log_path, errors="replace") as file:
            text = file.read()
        summary = [line for line in text.splitlines() if "Test run with" in line]
        print(f"shard {index} ({count} suites) exit {status} at {elapsed:.0f} s: "
              f"{summary[-1].strip() if summary else 'no summary'}", flush=True)
        reports = len(re.findall(args.fail_on, text)) if args.fail_on else 0
        if reports:
            print(f"shard {index}: {reports} reports matching {args.fail_on!r}", flush=True)
            for match in list(re.finditer(args.fail_on, text))[:3]:
                start = text.rfind("\n", 0, match.start()) + 1
                print("\n".join(text[start:].splitlines()[:60]), flush=True)
        if status != 0 or reports:
            failed.append(index)
            issues = [line for line in text.splitlines() if "✘" in line or "error:" in line]
            print("\n".join(issues[-40:]) if issues else text[-4000:], flush=True)
            if not summary:
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
    print(f"{len(selected)} tests in {len(suites)} suites, {len(plan)} shards, {total:.0f} s"
          + (f"; shards rerun after a crash: {rerun}" if rerun else "")
          + (f"; FAILED shards: {failed}" if failed else ""), flush=True)
    if args.record_timings and not failed and not args.filter:
        with open(TIMINGS, "w") as file:
            file.write("# suite\tseconds (scripts/run-tests.py --record-timings; balances the shards)\n")
            for suite in sorted(results):
                file.write(f"{suite}\t{results[suite]:.2f}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
