# Two commands do all set-up on a fresh machine:
#   make demo   the main job: the demo against the bundled local servers
#   make test   every test (unit and loopback against real Python peers)
.PHONY: bootstrap build test test-apple-config demo bench autobahn clean

bootstrap:
	./scripts/bootstrap.sh

build: bootstrap
	swift build

test: bootstrap
	swift test --no-parallel

# The Apple configuration on Linux: every target built as on Apple platforms (no epoll, no
# OpenSSL; URLSession is the default transport) in its own build folder, then the tests that
# can run against URLSession here. WebSocket tests skip themselves there and print why.
APPLE_CONFIG = --scratch-path .build-apple -Xswiftc -DREALTIME_NO_NATIVE_STACK
APPLE_CONFIG_TESTS = EventSourceTests|SocketIOTests|SocketIOConcurrencyTests|URLSessionHTTPTransportTests|URLSessionPEMTests

test-apple-config: bootstrap
	swift build $(APPLE_CONFIG) --build-tests
	swift test $(APPLE_CONFIG) --skip-build --no-parallel --filter '$(APPLE_CONFIG_TESTS)'

demo: bootstrap
	./scripts/demo.sh

bench: bootstrap
	./scripts/bench-websocket.sh
	./scripts/bench-sse.sh
	./scripts/bench-socketio.sh

autobahn: bootstrap
	./scripts/autobahn.sh

clean:
	rm -rf .build .build-apple .venv
