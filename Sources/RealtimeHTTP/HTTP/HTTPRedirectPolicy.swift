import Foundation
import HTTP1Codec

/// How a redirect response turns into the next request (RFC 9110 §15.4).
///
/// - 301 and 302 turn a POST into a GET without body (what every user agent does, allowed by
///   RFC 9110 §15.4.2 and §15.4.3); other methods are kept.
/// - 303 turns every method but HEAD into a GET without body (§15.4.4).
/// - 307 and 308 keep the method and body (§15.4.8, §15.4.9).
/// - Across origins `Authorization`, `Proxy-Authorization` and `Cookie` fields set by the caller are
///   dropped (the cookie store adds the cookies that belong to the new origin).
package enum HTTPRedirectPolicy {
    /// Redirect statuses that are followed.
    package static func isRedirect(_ status: Int) -> Bool {
        status == 301 || status == 302 || status == 303 || status == 307 || status == 308
    }

    /// The request that follows `response` with `status` and `location`, or `nil` when the
    /// response is not a redirect that can be followed (no or invalid `Location`).
    package static func redirectedRequest(
        from request: HTTPClientRequest, status: Int,
        location: String?
    ) -> HTTPClientRequest? {
        guard self.isRedirect(status), let location, !location.isEmpty,
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
            target.host != nil
        else { return nil }
        var next = request
        next.url = target
        let dropsBody =
            (status == 303 && request.method != "HEAD")
            || ((status == 301 || status == 302) && request.method == "POST")
        if dropsBody {
            next.method = "GET"
            next.body = nil
            for name in [
                "Content-Length", "Content-Type", "Content-Encoding", "Content-Language",
                "Content-Location", "Transfer-Encoding",
            ] {
                next.headers.remove(name: name)
            }
        }
        let tls = request.tls
        let sameOrigin: Bool = {
            guard let from = try? HTTPOrigin(url: request.url, tls: tls),
                let to = try? HTTPOrigin(url: target, tls: tls)
            else { return false }
            return from.isSameOrigin(as: to)
        }()
        if !sameOrigin {
            next.headers.remove(name: "Authorization")
            next.headers.remove(name: "Proxy-Authorization")
            next.headers.remove(name: "Cookie")
        }
        next.headers.remove(name: "Host")
        return next
    }
}
