// SocketIOConcurrency re-exports SocketIO, so `import SocketIOConcurrency` is enough.
@_exported public import SocketIO
