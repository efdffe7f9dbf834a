#if canImport(FoundationNetworking)
import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif
import HTTP1Codec
import Synchronization

/// An ``HTTPTransport`` over Foundation's URLSession (FoundationNetworking on Linux).
///
/// The body streams through `URLSessionDataDelegate`'s `didReceive data` into a bounded
/// queue behind ``HTTPBodySource``: when more than `bufferLimit` bytes wait unread the data
/// task is suspended, and resumed when the consumer drained half of them. Cancelling the
/// calling task (or the body) cancels the data task.
///
/// ``HTTPClientRequest/idleTimeout`` becomes the request's `timeoutInterval` (URLSession's
/// idle timeout); redirects follow ``HTTPRedirectPolicy`` up to
/// ``HTTPClientRequest/maxRedirects``. Cookies use the session configuration's cookie
/// storage (ephemeral by default); TLS uses the platform's trust store, so
/// ``HTTPClientRequest/tls`` is not applied.
///
/// - Important: Thread-safe; the delegate runs on a private serial queue.
package final class URLSessionHTTPTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: URLSessionTransportDelegate
    /// Body bytes queued before the data task is suspended.
    package let bufferLimit: Int

    package init(configuration: URLSessionConfiguration = .ephemeral, bufferLimit: Int = 256 * 1024) {
        self.bufferLimit = max(1, bufferLimit)
        self.delegate = URLSessionTransportDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "URLSessionHTTPTransport"
        self.session = URLSession(configuration: configuration, delegate: self.delegate, delegateQueue: queue)
    }

    deinit {
        self.session.invalidateAndCancel()
    }

    package func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        _ = try HTTPOrigin(url: request.url, tls: request.tls)
        if Task.isCancelled { throw HTTPClientError(.cancelled, "the task was cancelled") }
        let bridge = URLSessionTaskBridge(request: request, bufferLimit: self.bufferLimit)
        let task = self.session.dataTask(with: Self.urlRequest(for: request))
        bridge.attach(task)
        self.delegate.register(bridge, for: task)
        let head = await bridge.start()
        let response: HTTPURLResponse
        switch head {
        case .success(let value): response = value
        case .failure(let error):
            bridge.cancel()
            throw error
        }
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(name: "\(name)", value: "\(value)")
        }
        return HTTPClientResponse(status: response.statusCode,
                                  reason: HTTPURLResponse.localizedString(forStatusCode: response.statusCode),
                                  headers: headers, url: response.url ?? request.url,
                                  body: HTTPResponseBody(source: bridge))
    }

    static func urlRequest(for request: HTTPClientRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        let seconds = Double(request.idleTimeout.components.seconds)
            + Double(request.idleTimeout.components.attoseconds) / 1e18
        urlRequest.timeoutInterval = max(0.001, seconds)
        for (name, value) in request.headers {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        return urlRequest
    }
}

/// Routes URLSession's delegate callbacks to the bridge of each task.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let bridges = Mutex<[Int: URLSessionTaskBridge]>([:])

    func register(_ bridge: URLSessionTaskBridge, for task: URLSessionTask) {
        self.bridges.withLock { $0[task.taskIdentifier] = bridge }
    }

    private func bridge(for task: URLSessionTask) -> URLSessionTaskBridge? {
        self.bridges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        self.bridge(for: dataTask)?.didReceive(response: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        self.bridge(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let bridge = self.bridges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        bridge?.didComplete(error: error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let bridge = self.bridge(for: task), bridge.request.maxRedirects > 0 else {
            completionHandler(nil)   // deliver the redirect response itself
            return
        }
        guard bridge.admitRedirect() else {
            completionHandler(nil)
            task.cancel()
            return
        }
        // Apply the project's policy to the request as it was on the previous hop.
        var previous = bridge.request
        if let previousURL = task.currentRequest?.url ?? task.originalRequest?.url { previous.url = previousURL }
        if let current = task.currentRequest {
            previous.method = current.httpMethod ?? previous.method
            previous.body = current.httpBody.map { [UInt8]($0) }
            var headers = HTTPHeaders()
            for (name, value) in current.allHTTPHeaderFields ?? [:] { headers.add(name: name, value: value) }
            previous.headers = headers
        }
        guard let next = HTTPRedirectPolicy.redirectedRequest(
            from: previous, status: response.statusCode,
            location: response.value(forHTTPHeaderField: "Location")) else {
            completionHandler(nil)
            return
        }
        completionHandler(URLSessionHTTPTransport.urlRequest(for: next))
    }
}
