// The reference Socket.IO server (socket.io 4.8, ../shared/node-sio) for the broadcast soak
// (scripts/soak.sh broadcast, RealtimeSoak broadcast): the same events as
// soak_broadcast_server.py, served by the server most deployments run, which fans a broadcast
// out to 10,000 clients faster than python-socketio. Run with NODE_PATH pointing at that
// node_modules:
//   node Tests/Servers/node_broadcast_server.js [ping interval in seconds, default 10]
// Binds 127.0.0.1 on a port the kernel picks and prints PORT=<n>.
//
// Events:
//   "clients" (ack)                      ack the number of connected clients
//   "broadcast" (count, intervalMs, ack) ack [], then emit "tick" (seq, sentNs) to every client
//                                        `count` times, `intervalMs` apart (sentNs: the wall
//                                        clock in nanoseconds just before the emit), then
//                                        "ticks_done" (count)
const { Server } = require("socket.io");
const http = require("http").createServer();
const pingSeconds = Number(process.argv[2] || "10");
const io = new Server(http, { pingInterval: pingSeconds * 1000, pingTimeout: 20000 });

const wallNanoseconds = () => BigInt(Date.now()) * 1000000n + (process.hrtime.bigint() % 1000000n);

io.on("connection", (socket) => {
  socket.on("clients", (ack) => ack(io.engine.clientsCount));
  socket.on("broadcast", (count, intervalMs, ack) => {
    ack([]);
    const start = Date.now();
    let seq = 0;
    const next = () => {
      if (seq >= count) {
        io.emit("ticks_done", count);
        return;
      }
      // Numbers are doubles in JSON: nanoseconds since 1970 keep microsecond precision.
      io.emit("tick", seq, Number(wallNanoseconds()));
      seq += 1;
      // On a schedule, not "wait after": a slow emit does not stretch the run.
      setTimeout(next, Math.max(0, start + seq * intervalMs - Date.now()));
    };
    next();
  });
});

http.listen(0, "127.0.0.1", () => console.log(`PORT=${http.address().port}`));
