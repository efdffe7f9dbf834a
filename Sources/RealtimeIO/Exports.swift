// The protocols and value types this layer implements (`ByteStream`, `Endpoint`,
// `TLSConfiguration`, `NetworkError`) live in the transport seam, RealtimeTransport.
@_exported public import RealtimeTransport
