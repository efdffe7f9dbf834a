# Two commands do all set-up on a fresh machine:
#   make demo   the main job: the demo against the bundled local servers
#   make test   every test (unit and loopback against real Python peers)
.PHONY: bootstrap build test test-apple-config apple-check lint format demo docs bench autobahn tsan asan tsan-ci fuzz-smoke clean

bootstrap:
	./scripts/bootstrap.sh

build: bootstrap
	swift build

# Every test, in TEST_SHARDS test processes at once (scripts/run-tests.py: each process runs
# its suites one after another, suites balanced by Tests/suite-timings.tsv).
TEST_SHARDS ?= 6
test: bootstrap
	swift build --build-tests
	./scripts/run-tests.py --shards $(TEST_SHARDS) --rerun-toolchain-crashes

# The Apple configuration on Linux: every target built as on Apple platforms (no epoll, no
# OpenSSL; URLSession is the default transport) in its own build folder, then every unit suite
# and every test that can run against URLSession here. WebSocket tests skip themselves there
# and print why.
APPLE_CONFIG = --scratch-path .build-apple -Xswiftc -DREALTIME_NO_NATIVE_STACK
APPLE_CONFIG_TESTS = RealtimeTimeTests|RealtimeEncodingTests|EngineIOProtocolTests|EngineIOClientTests|SocketIOProtocolTests|SSEProtocolTests|HTTP1CodecTests|WebSocketCodecTests|ProxyCodecTests|RealtimeSyncTests|EventSourceTests|SocketIOTests|SocketIOConcurrencyTests|RealtimeHTTPTests\.(URLSession|HTTPRedirectPolicyTests|HTTPRequestTargetTests|HTTPConnectionPoolStateTests|HTTPCookieStoreTests|ProxyConfigurationTests|WebSocketConnectionTests|WebSocketBatchSendTests|WebSocketImmediateSendTests)

test-apple-config: bootstrap
	swift build $(APPLE_CONFIG) --build-tests
	REALTIME_URLSESSION_HOSTILE=1 ./scripts/run-tests.py --shards $(TEST_SHARDS) --scratch-path .build-apple --Xswiftc=-DREALTIME_NO_NATIVE_STACK --rerun-toolchain-crashes --reruns 2 --filter '^($(APPLE_CONFIG_TESTS))'

# Every target (libraries, tools, tests) compiled for iOS against the real SDK's interfaces,
# with arm64 object code, at the declared minimum (Package.swift) and at iOS 18, by
# ../shared/apple-sdk/apple-typecheck.sh (see its README). Not linked, not run: no iOS linker
# or runtime is here. A clone without ../shared/apple-sdk (a user's) skips with the reason.
APPLE_SDK_DIR ?= $(abspath ../shared/apple-sdk)
APPLE_CHECK_TRIPLES ?= arm64-apple-ios13.0 arm64-apple-ios18.0
APPLE_CHECK_JOBS ?= 2
apple-check:
	JOBS=$(APPLE_CHECK_JOBS) ./scripts/apple-check.sh $(APPLE_SDK_DIR) $(APPLE_CHECK_TRIPLES)

# swift-format (the toolchain's `swift format`) with .swift-format: `make lint` fails on any
# finding (CI runs it), `make format` rewrites the files in place.
FORMAT_PATHS = Sources Tests Tools Package.swift
lint:
	swift format lint --strict --recursive --parallel $(FORMAT_PATHS)

format:
	swift format format --in-place --recursive --parallel $(FORMAT_PATHS)

demo: bootstrap
	./scripts/demo.sh

# The DocC site of SocketIO, SocketIOConcurrency and EventSource (scripts/docs.sh): symbol graphs
# from the debug build, docc convert with --warnings-as-errors, into .build/docs. Fails when an
# article's ```swift block is not compiled in Tests/DocExamplesTests or a public symbol has no
# doc comment.
docs:
	./scripts/docs.sh

# Every benchmark in one run (scripts/bench.sh): WebSocket, SSE and Socket.IO side by side with
# their Python peers, and the kernel floor of a loopback round trip between them; raw outputs,
# report.md and charts in bench-results/ (scripts/bench_report.py). Changes no tracked file unless
# BENCH_UPDATE_DOCS=1, which rewrites docs/BENCHMARKS.md's tables and docs/benchmarks/*.png.
# BENCH_NOTE="..." adds a sentence about the run's conditions to the report.
BENCH_UPDATE_DOCS ?= 0
BENCH_NOTE ?=
bench: export BENCH_UPDATE_DOCS := $(BENCH_UPDATE_DOCS)
bench: export BENCH_NOTE := $(BENCH_NOTE)
bench: bootstrap
	./scripts/bench.sh

autobahn: bootstrap
	./scripts/autobahn.sh

# Sanitizers (scripts/sanitize.sh; scratch paths .build-tsan / .build-asan, logs under them):
#   make tsan     every suite under ThreadSanitizer
#   make asan     every suite under AddressSanitizer + LeakSanitizer
#   make tsan-ci  ThreadSanitizer over the suites CI runs; fails on any report
tsan: bootstrap
	./scripts/sanitize.sh thread

asan: bootstrap
	./scripts/sanitize.sh address

TSAN_SHARDS ?= 4
TSAN_CI_SUITES = RealtimeSyncTests RealtimeIOTests RealtimeHTTPTests EventSourceTests EngineIOClientTests SocketIOTests SocketIOConcurrencyTests
tsan-ci: bootstrap
	SANITIZE_SHARDS=$(TSAN_SHARDS) ./scripts/sanitize.sh thread $(TSAN_CI_SUITES)

# libFuzzer targets (scripts/fuzz.sh): replay the seed corpus (regression inputs included), then
# 20,000 executions per target from an empty working corpus with a fixed seed (-seed=1), so a CI
# run repeats mutations a checked run made instead of failing main on a fresh random finding
# (fuzz for real with scripts/fuzz.sh TARGET SECONDS; findings go to docs/RELIABILITY.md).
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_SMOKE_RUNS ?= 20000
fuzz-smoke:
	./scripts/fuzz.sh --replay all
	FUZZ_JOBS=2 FUZZ_ARGS="-seed=1 -runs=$(FUZZ_SMOKE_RUNS) $(FUZZ_ARGS)" ./scripts/fuzz.sh all $(FUZZ_SMOKE_SECONDS)

clean:
	rm -rf .build .build-apple .build-tsan .build-asan .venv
