import RealtimeHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
import Foundation
#else
import Foundation
#endif

extension HTTPURLResponse {
    /// The head of a transport's response as Foundation's type, for
    /// ``EventSource/DataTask/response``: its status, its final URL (after redirects) and its
    /// headers. Repeated header fields are joined with `, ` (RFC 9110 §5.3), as URLSession
    /// reports them.
    static func head(of response: HTTPClientResponse) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        var names: [String: String] = [:]  // lowercased name -> the spelling first seen
        for (name, value) in response.headers {
            let key = name.lowercased()
            if let spelling = names[key] {
                fields[spelling] = (fields[spelling] ?? "") + ", " + value
            } else {
                names[key] = name
                fields[name] = value
            }
        }
        return HTTPURLResponse(url: response.url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
