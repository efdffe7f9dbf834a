#!/usr/bin/env bash
# The kernel's share of one request/response over loopback on this machine: a minimal C
# client (blocking send + recv of a 30-byte message, TCP_NODELAY, one thread) against the
# asyncio echo peer of the tests, reporting its CPU time (user + system) and context switches
# per round trip. No client can spend less per round trip here; the Socket.IO and WebSocket
# benchmarks' CPU figures are read against it. A second line measures the same loop with one
# thread hop per round trip (a reader thread receives each reply and hands it to the calling
# thread through a pipe): the floor of a client whose replies are read on one thread and
# delivered on another, as a callback on a dispatch queue or a resumed task is.
#   scripts/kernel-floor.sh [round trips]
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-20000}
[ -x .venv/bin/python ] || ./scripts/bootstrap.sh >/dev/null
work=$(mktemp -d)
cat > "$work/floor.c" <<'C'
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
static int sock, hop[2], total;
static void *reader(void *unused) {
    char reply[4096];
    for (int i = 0; i < total; i++) {
        int got = 0;
        while (got < 30) { int n = recv(sock, reply, sizeof reply, 0); if (n <= 0) return NULL; got += n; }
        if (write(hop[1], "r", 1) != 1) return NULL;
    }
    return NULL;
}
static double micros(struct timeval t) { return t.tv_sec * 1e6 + t.tv_usec; }
int main(int argc, char **argv) {
    int port = atoi(argv[1]), count = atoi(argv[2]), one = 1;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(0x7f000001) };
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); return 1; }
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char message[] = "42[\"echo\",\"payload\",12345]!!", reply[4096];
    for (int i = 0; i < 200; i++) { send(s, message, 30, 0); recv(s, reply, sizeof reply, 0); }
    int hopping = argc > 3 && strcmp(argv[3], "hop") == 0;
    pthread_t thread;
    if (hopping) {
        sock = s; total = count;
        if (pipe(hop) != 0) { perror("pipe"); return 1; }
        pthread_create(&thread, NULL, reader, NULL);
    }
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    for (int i = 0; i < count; i++) {
        send(s, message, 30, 0);
        if (hopping) {
            char token;
            if (read(hop[0], &token, 1) != 1) return 1;
            continue;
        }
        int got = 0;
        while (got < 30) { int n = recv(s, reply, sizeof reply, 0); if (n <= 0) return 1; got += n; }
    }
    getrusage(RUSAGE_SELF, &u1);
    double cpu = micros(u1.ru_utime) - micros(u0.ru_utime) + micros(u1.ru_stime) - micros(u0.ru_stime);
    double system = micros(u1.ru_stime) - micros(u0.ru_stime);
    long switches = (u1.ru_nvcsw - u0.ru_nvcsw) + (u1.ru_nivcsw - u0.ru_nivcsw);
    printf("%s: %.1f us CPU per round trip (%.1f us in the kernel), %.2f context switches\n",
           hopping ? "C client, one thread hop per reply" : "C client, blocking send+recv",
           cpu / count, system / count, (double)switches / count);
    return 0;
}
C
gcc -O2 -pthread -o "$work/floor" "$work/floor.c"
.venv/bin/python -u Tests/Servers/io_tcp_server.py echo > "$work/server.out" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do grep -q '^PORT=' "$work/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^PORT=//p' "$work/server.out" | head -1)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
"$work/floor" "$port" "$COUNT"
"$work/floor" "$port" "$COUNT" hop
