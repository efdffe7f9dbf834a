// `HTTPHeaders` lives in the transport seam (RealtimeTransport), which every transport and
// product shares; the codec's users keep seeing it through `import HTTP1Codec`.
@_exported public import RealtimeTransport
