import RealtimeHTTP
import TestSupport
import Testing

@testable import EventSource

/// Which HTTP stack each ``EventSource/Transport`` sends requests with: `.automatic` is
/// URLSession in the `REALTIME_NO_NATIVE_STACK` build (as on Apple platforms) and the native
/// client on Linux (URLSession there for a scheme other than http and https); the built-in transports are shared by the whole process.
@Suite struct EventSourceTransportSelectionTests {
    @Test func eachTransportPicksItsStack() {
        #expect(EventSource.Transport.urlSession.makeHTTPTransport() is URLSessionHTTPTransport)
        #expect(EventSource.Transport.native.makeHTTPTransport() is HTTPClient)
        let automatic = EventSource.Transport.automatic.makeHTTPTransport()
        #expect((automatic is URLSessionHTTPTransport) == BuildConfiguration.noNativeStack)
        // With the native client, `.automatic` chooses per request (URLSession for `mock://`).
        #expect((automatic is AutomaticHTTPTransport) == !BuildConfiguration.noNativeStack)
        #expect(
            EventSource.Transport.urlSession.makeHTTPTransport() as AnyObject
                === EventSource.Transport.urlSession.makeHTTPTransport() as AnyObject)
    }

    @Test func theDefaultEventSourceUsesAutomatic() {
        guard case .automatic = EventSource().transport.kind else {
            Issue.record("EventSource() does not default to .automatic")
            return
        }
    }
}
