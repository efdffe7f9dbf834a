// `import SocketIO` (and `import SocketIOConcurrency`, which re-exports it) brings Foundation,
// as upstream's framework does through its umbrella header: the seeds' snippets use `URL` with
// no other import.
@_exported public import Foundation

// `.eventLoopGroup(_:)` takes a group of the native transport's event loops: the one type of
// RealtimeIO an app names, so `import SocketIO` brings it (and nothing else of it).
@_exported public import class RealtimeIO.EventLoopGroup
