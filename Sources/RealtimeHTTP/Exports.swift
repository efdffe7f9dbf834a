// The transport protocols this layer implements (`HTTPTransport`, `WebSocketTransport`) and
// their value types live in the transport seam, RealtimeTransport.
@_exported public import RealtimeTransport
