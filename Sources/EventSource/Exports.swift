// `EventSource.eventLoopGroup` takes a group of the native transport's event loops: the one
// type of RealtimeIO an app names, so `import EventSource` brings it (and nothing else of it).
@_exported public import class RealtimeIO.EventLoopGroup

// `URLRequest` lives in FoundationNetworking on Linux. Re-exporting it lets code written for
// Apple platforms (`import EventSource` + `import Foundation`, then `URLRequest(url:)`)
// compile unchanged on Linux, as the API contract's examples do.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
