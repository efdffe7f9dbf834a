// The reference Socket.IO server (socket.io 4.8, ../shared/node-sio) for what a new user meets
// first: the seed's flow, an emit with no arguments, typed events under connection state
// recovery, and a refused connection whose error carries data. Run with NODE_PATH pointing at
// that node_modules:
//   node Tests/Servers/node_first_hour_server.js [recovery]
// With "recovery", connectionStateRecovery is on: the server then appends an offset string to
// every event it sends without an ack. Binds 127.0.0.1 on a port the kernel picks, prints
// PORT=<n>, then one JSON line per event it received ({"event": name, "args": n}).
//
// Middleware: a CONNECT whose auth has token "expired" is refused with
//   next(err) where err.message = "token expired" and err.data = {reason: "expired", retry: false}
// Events:
//   "message:send" (payload, ack)   ack {ok: true, id: n}, then emit "message:new" {id: n, message: payload}
//   "message:confirm" (payload, ack) ack {confirmed: true, echo: payload}
//   "ping" (...args, ack?)           record the argument count; ack it when asked
//   "typed" (ack)                    emit "message:new" {id: 1, message: "one"} and {id: 2, message: "two"}
//                                    without ack, then "message:new" {id: 3, message: "three"} with one
//                                    (the client's answer is ignored), then ack "sent"
const { Server } = require("socket.io");
const http = require("http").createServer();
const recovery = process.argv[2] === "recovery";
const io = new Server(http, {
  pingInterval: 2000,
  pingTimeout: 2000,
  ...(recovery ? { connectionStateRecovery: { maxDisconnectionDuration: 60000 } } : {}),
});

io.use((socket, next) => {
  if (socket.handshake.auth && socket.handshake.auth.token === "expired") {
    const err = new Error("token expired");
    err.data = { reason: "expired", retry: false };
    return next(err);
  }
  next();
});

let nextID = 1;
io.on("connection", (socket) => {
  socket.onAny((event, ...args) => {
    const count = typeof args[args.length - 1] === "function" ? args.length - 1 : args.length;
    console.log(JSON.stringify({ event, args: count }));
  });
  socket.on("message:send", (payload, ack) => {
    const id = nextID++;
    if (typeof ack === "function") ack({ ok: true, id });
    socket.emit("message:new", { id, message: payload });
  });
  socket.on("message:confirm", (payload, ack) => ack({ confirmed: true, echo: payload }));
  socket.on("ping", (...args) => {
    const ack = args[args.length - 1];
    if (typeof ack === "function") ack(args.length - 1);
  });
  socket.on("typed", (ack) => {
    socket.emit("message:new", { id: 1, message: "one" });
    socket.emit("message:new", { id: 2, message: "two" });
    socket.timeout(1000).emit("message:new", { id: 3, message: "three" }, () => {});
    ack("sent");
  });
});

http.listen(0, "127.0.0.1", () => console.log(`PORT=${http.address().port}`));
