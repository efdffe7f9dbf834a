"""httpx-sse client for scripts/bench-sse.sh: reads /flood and prints one table row
(events, seconds, events/s, client CPU microseconds per event, MB/s over wall and CPU time).
`large PORT SIZE`: one event of SIZE data bytes, 10 runs, best and median MB/s."""
import resource
import sys
import time

import httpx
from httpx_sse import connect_sse


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def large(port, size, runs=10):
    """One event of `size` data bytes, `runs` times: MB/s from the open response to the event."""
    url = f"http://127.0.0.1:{port}/flood?count=1&size={size}"
    rates = []
    with httpx.Client(timeout=60) as client:
        for _ in range(runs):
            with connect_sse(client, "GET", url) as source:
                opened = time.perf_counter()
                for event in source.iter_sse():
                    assert len(event.data) == size, len(event.data)
                    rates.append((size + 8) / (time.perf_counter() - opened) / 1e6)
    rates.sort()
    print(f"{f'python httpx-sse, one {(size + 8) >> 20} MiB event':<34}{f'{runs} runs':>16}{'':>16}"
          f"{f'best {rates[-1]:.0f}':>16}{f'median {rates[len(rates) // 2]:.0f}':>16}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "large":
        large(sys.argv[2], int(sys.argv[3]))
        return
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
