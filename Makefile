# Two commands do all set-up on a fresh machine:
#   make demo   the main job: the demo against the bundled local servers
#   make test   every test (unit and loopback against real Python peers)
.PHONY: bootstrap build test demo bench autobahn fuzz-smoke clean

bootstrap:
	./scripts/bootstrap.sh

build: bootstrap
	swift build

test: bootstrap
	swift test --no-parallel

demo: bootstrap
	./scripts/demo.sh

bench: bootstrap
	./scripts/bench-websocket.sh
	./scripts/bench-sse.sh
	./scripts/bench-socketio.sh

autobahn: bootstrap
	./scripts/autobahn.sh

# libFuzzer targets (scripts/fuzz.sh): replay the seed corpus, then 20 s of fuzzing per target.
FUZZ_SMOKE_SECONDS ?= 20
fuzz-smoke:
	./scripts/fuzz.sh --replay all
	FUZZ_JOBS=2 ./scripts/fuzz.sh all $(FUZZ_SMOKE_SECONDS)

clean:
	rm -rf .build .venv
