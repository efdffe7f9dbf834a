/* The kernel's floor for a streamed HTTP body on this machine, for scripts/bench-sse.sh.
 *
 *   stream-floor get <port> <path>   GET the path from 127.0.0.1 and recv() the response into
 *                                    a 256 KiB buffer until the server closes: what a client
 *                                    that does nothing with the bytes reads from the same
 *                                    server (the server's and the kernel's share together).
 *   stream-floor pair <bytes>        a child process writes <bytes> in 1 MiB send()s over a
 *                                    loopback TCP connection and this process recv()s them:
 *                                    the kernel's loopback copy rate, no server in the way.
 *   stream-floor serve               an SSE server for the benchmark clients, so that no
 *                                    client is bounded by a Python server's writes: prints
 *                                    PORT=<port>, then answers each GET /flood?count=N&size=S
 *                                    (one connection at a time) with 200 text/event-stream and
 *                                    N events `data: <S times x>` pre-built, sent in 1 MiB
 *                                    send()s, and closes the connection.
 *
 * get and pair print one row: the case, bytes, seconds from the first body byte to the end,
 * MB/s over that time, and this process's CPU seconds. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static int connect_to(int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(0x7f000001)};
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); exit(1); }
    return s;
}

static void report(const char *name, long long bytes, double seconds, double cpu_seconds) {
    printf("%-34s%16lld%16.3f%16.0f%16.3f\n", name, bytes, seconds, bytes / seconds / 1e6, cpu_seconds);
}

static char buffer[256 << 10];

static int get(int port, const char *path) {
    int s = connect_to(port);
    char request[1024];
    int length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", path);
    if (send(s, request, length, 0) != length) { perror("send"); return 1; }
    long long body = 0;
    int in_head = 1;
    double start = 0, cpu_start = 0;
    const char *end_of_head = "\r\n\r\n";
    int matched = 0;
    for (;;) {
        ssize_t n = recv(s, buffer, sizeof buffer, 0);
        if (n < 0) { perror("recv"); return 1; }
        if (n == 0) break;
        ssize_t offset = 0;
        while (in_head && offset < n) {
            matched = buffer[offset] == end_of_head[matched] ? matched + 1 : (buffer[offset] == '\r' ? 1 : 0);
            offset++;
            if (matched == 4) in_head = 0;
        }
        if (!in_head && offset < n) {
            if (start == 0) { start = now(); cpu_start = cpu(); }
            body += n - offset;
        }
    }
    double seconds = now() - start;
    report("kernel floor: C recv() client", body, seconds, cpu() - cpu_start);
    return 0;
}

static int pair(long long total) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(0x7f000001)};
    socklen_t size = sizeof a;
    if (bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 1) != 0) { perror("listen"); return 1; }
    getsockname(listener, (struct sockaddr *)&a, &size);
    pid_t child = fork();
    if (child == 0) {
        int s = connect_to(ntohs(a.sin_port));
        static char chunk[1 << 20];
        memset(chunk, 'x', sizeof chunk);
        for (long long sent = 0; sent < total;) {
            long long want = total - sent < (long long)sizeof chunk ? total - sent : (long long)sizeof chunk;
            ssize_t n = send(s, chunk, want, 0);
            if (n <= 0) _exit(1);
            sent += n;
        }
        close(s);
        _exit(0);
    }
    int s = accept(listener, NULL, NULL);
    long long received = 0;
    double start = now(), cpu_start = cpu();
    for (;;) {
        ssize_t n = recv(s, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        received += n;
    }
    double seconds = now() - start;
    waitpid(child, NULL, 0);
    report("kernel: loopback copy, C to C", received, seconds, cpu() - cpu_start);
    return 0;
}

static int serve(void) {
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(0x7f000001)};
    socklen_t size = sizeof a;
    if (bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 16) != 0) { perror("listen"); return 1; }
    getsockname(listener, (struct sockaddr *)&a, &size);
    printf("PORT=%d\n", ntohs(a.sin_port));
    fflush(stdout);
    char *payload = NULL;
    long long payload_count = -1, payload_size = -1, payload_bytes = 0;
    for (;;) {
        int s = accept(listener, NULL, NULL);
        if (s < 0) continue;
        char request[8192];
        int got = 0;
        while (got < (int)sizeof request - 1) {
            ssize_t n = recv(s, request + got, sizeof request - 1 - got, 0);
            if (n <= 0) break;
            got += n;
            request[got] = 0;
            if (strstr(request, "\r\n\r\n")) break;
        }
        request[got] = 0;
        const char *count_text = strstr(request, "count="), *size_text = strstr(request, "size=");
        long long count = count_text ? atoll(count_text + 6) : 1, data = size_text ? atoll(size_text + 5) : 56;
        if (count != payload_count || data != payload_size) {
            free(payload);
            long long event = data + 8;
            payload_bytes = count * event;
            payload = malloc(payload_bytes > 0 ? payload_bytes : 1);
            if (!payload) { perror("malloc"); return 1; }
            for (long long i = 0; i < count; i++) {
                char *e = payload + i * event;
                memcpy(e, "data: ", 6);
                memset(e + 6, 'x', data);
                memcpy(e + 6 + data, "\n\n", 2);
            }
            payload_count = count;
            payload_size = data;
        }
        const char *head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
        send(s, head, strlen(head), 0);
        for (long long sent = 0; sent < payload_bytes;) {
            long long want = payload_bytes - sent < (1 << 20) ? payload_bytes - sent : (1 << 20);
            ssize_t n = send(s, payload + sent, want, MSG_NOSIGNAL);
            if (n <= 0) break;
            sent += n;
        }
        close(s);
    }
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "serve") == 0) return serve();
    if (argc == 4 && strcmp(argv[1], "get") == 0) return get(atoi(argv[2]), argv[3]);
    if (argc == 3 && strcmp(argv[1], "pair") == 0) return pair(atoll(argv[2]));
    fprintf(stderr, "usage: stream-floor get <port> <path> | pair <bytes>\n");
    return 2;
}
