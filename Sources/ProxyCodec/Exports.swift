// The proxy value types (`ProxyServer`, `ProxyCredentials`, `ProxyConfiguration`) live in the
// transport seam, RealtimeTransport, which the request and option types there carry.
@_exported public import RealtimeTransport
