// The demo of the README's main job. Its flow (the SocketIOConcurrency seed's usage)
// lands with the SocketIOConcurrency issue; until then it says so and fails.
import Foundation

FileHandle.standardError.write(Data("RealtimeDemo: not implemented yet (see README)\n".utf8))
exit(1)
