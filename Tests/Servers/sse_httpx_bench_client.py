"""httpx-sse client for scripts/bench-sse.sh: reads /flood and prints one table row
(events, seconds, events/s, client CPU microseconds per event, MB/s over wall and CPU time)."""
import resource
import sys
import time

import httpx
from httpx_sse import connect_sse


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main():
    port, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    url = f"http://127.0.0.1:{port}/flood?count={count}&size={size}"
    received = 0
    cpu_start = cpu()
    start = time.perf_counter()
    with httpx.Client(timeout=60) as client:
        with connect_sse(client, "GET", url) as source:
            for _ in source.iter_sse():
                received += 1
    elapsed = time.perf_counter() - start
    used = cpu() - cpu_start
    per_event = used / max(received, 1) * 1e6
    megabytes = received * (size + 8) / 1e6
    print(f"{'python httpx-sse':<34}{received:>16}{elapsed:>16.3f}{received / elapsed:>16.0f}{per_event:>16.3f}"
          f"{megabytes / elapsed:>16.0f}{megabytes / max(used, 1e-9):>16.0f}")


if __name__ == "__main__":
    main()
