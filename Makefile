# Two commands do all set-up on a fresh machine:
#   make demo   the main job: the demo against the bundled local servers
#   make test   every test (unit and loopback against real Python peers)
.PHONY: bootstrap build test demo bench autobahn clean

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

clean:
	rm -rf .build .venv
