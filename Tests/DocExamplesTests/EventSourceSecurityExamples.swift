import EventSource
import Foundation

// The ```swift block of TLSAndProxies.md's "A private CA, a pinned certificate, a development
// server" section, compiled here (scripts/docs.sh checks it appears verbatim).

func eventSourceSecurityOptions() throws -> EventSource {
    var eventSource = EventSource()
    // A private CA, or a self-signed server's own certificate: trusted besides the system's roots.
    let pem = try String(contentsOfFile: "ca.pem", encoding: .utf8)
    eventSource.security = .certificates([pem])
    // The same, accepting a certificate made for another host name.
    eventSource.security = .certificates([pem], verifiesHostname: false)
    // Development only: no verification at all.
    eventSource.security = .selfSigned
    return eventSource
}
