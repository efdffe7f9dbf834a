// `import SocketIO` (and `import SocketIOConcurrency`, which re-exports it) brings Foundation,
// as upstream's framework does through its umbrella header: the seeds' snippets use `URL` with
// no other import.
@_exported public import Foundation
