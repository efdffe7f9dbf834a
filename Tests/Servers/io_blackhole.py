"""A loopback listener whose SYNs go unanswered, for connect-timeout tests.

Listens on 127.0.0.1 with backlog 0, never accepts, and fills its accept queue with its own
connections first. Linux then drops further SYNs (the queue is full), so a client's connect
stays in SYN_SENT until the client gives up. Prints PORT=<n> once the queue is full.
"""
import signal
import socket
import sys
import time

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(0)
port = listener.getsockname()[1]

fillers = []
for _ in range(16):
    filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    filler.settimeout(0.3)
    try:
        filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    except (socket.timeout, OSError):
        filler.close()
        break
else:
    print("could not fill the accept queue", file=sys.stderr)
    sys.exit(1)

print(f"PORT={port}", flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    time.sleep(1)
