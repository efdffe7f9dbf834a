// The reference Socket.IO server (socket.io 4.8, ../shared/node-sio) with connection state
// recovery on, for the recovery tests. Run with NODE_PATH pointing at that node_modules:
//   node Tests/Servers/node_recovery_server.js [maxDisconnectionDurationMs]
// Binds 127.0.0.1 on a port the kernel picks and prints PORT=<n>; prints one JSON line per
// connection ({"connection": sid, "recovered": bool, "auth": {...}}) so a test can see what
// the client's CONNECT carried.
//
// Events a test sends:
//   "auth_seen" (ack)       ack the auth of this connection's CONNECT
//   "record" (value, ack?)  emit "recorded" with value back, and ack it when asked
//   "warm" (ack)            broadcast "room" 0 to the room (gives the client an offset), then ack
//   "fake_offset" (ack)     emit "fake" (volatile) ending with a string that is no offset the
//                           server knows, then ack
//   "cut" (mode, ack)       ack, then: mode "server" closes the transport (socket.conn.close());
//                           mode "client" waits for the client to close its own. While the
//                           client is away the server emits to the room: "room" 1, "room" 2, a
//                           binary "bin", a volatile "vol", a "withack" expecting an ack, "room" 3.
//                           Only the non-volatile broadcasts without ack are kept for replay.
//   "retry:flaky" (key, ack) record the delivery; ack "ok:<key>" from the second delivery of a
//                           key on (the first is never acknowledged)
//   "retry:never" (key, ack) record the delivery, never ack
//   "retry:deliveries" (ack) ack the keys delivered so far by the two above, in order
const { Server } = require("socket.io");
const http = require("http").createServer();
const windowMs = Number(process.argv[2] || 60000);
const io = new Server(http, {
  pingInterval: 2000,
  pingTimeout: 2000,
  maxHttpBufferSize: 1e6,
  connectionStateRecovery: { maxDisconnectionDuration: windowMs, skipMiddlewares: true },
});

const deliveries = [];

io.on("connection", (socket) => {
  console.log(JSON.stringify({ connection: socket.id, recovered: socket.recovered, auth: socket.handshake.auth }));
  socket.join("room");
  let emitWhileAway = false;

  socket.on("auth_seen", (ack) => ack(socket.handshake.auth));
  socket.on("record", (value, ack) => {
    socket.emit("recorded", value);
    if (typeof ack === "function") ack(value);
  });
  socket.on("warm", (ack) => {
    io.to("room").emit("room", 0);
    ack("warm");
  });
  socket.on("fake_offset", (ack) => {
    // volatile: not stored for replay, so the server appends no offset of its own
    socket.volatile.emit("fake", "bogus-offset");
    ack("fake");
  });
  socket.on("retry:flaky", (key, ack) => {
    const first = !deliveries.includes(key);
    deliveries.push(key);
    if (!first && typeof ack === "function") ack(`ok:${key}`);
  });
  socket.on("retry:never", (key) => deliveries.push(key));
  socket.on("retry:deliveries", (ack) => ack(deliveries));
  socket.on("cut", (mode, ack) => {
    emitWhileAway = true;
    ack("cut");
    if (mode === "server") setTimeout(() => socket.conn.close(), 20);
  });
  socket.on("disconnect", (reason) => {
    console.log(JSON.stringify({ disconnect: socket.id, reason }));
    if (!emitWhileAway) return;
    io.to("room").emit("room", 1);
    io.to("room").emit("room", 2);
    io.to("room").emit("bin", Buffer.from([1, 2, 3]));
    io.to("room").volatile.emit("vol", 1);
    io.to("room").timeout(500).emit("withack", 1, () => {});
    io.to("room").emit("room", 3);
  });
});

http.listen(0, "127.0.0.1", () => console.log(`PORT=${http.address().port}`));
