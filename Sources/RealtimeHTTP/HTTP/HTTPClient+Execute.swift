import Foundation
import HTTP1Codec
import RealtimeIO
import RealtimeTime
import RealtimeTransport

extension HTTPClient {
    /// Sends `request`, following redirects, and returns once the final response head arrived.
    ///
    /// - Throws: ``HTTPClientError``: `.invalidURL`, `.network(_)` (refused, reset, TLS...),
    ///   `.timedOut` (no progress for `idleTimeout`), `.headersTooLarge`, `.invalidResponse`,
    ///   `.tooManyRedirects`, `.cancelled`.
    package func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        var request = request
        var redirectsFollowed = 0
        while true {
            let watchdog = HTTPIdleWatchdog(timeout: request.idleTimeout)
            let exchange: (head: HTTPResponseHead, connection: HTTPConnection, parser: HTTPResponseParser)
            do {
                exchange = try await self.sendAndReceiveHead(request, watchdog: watchdog)
            } catch {
                watchdog.stop()
                throw error
            }
            let head = exchange.head
            self.cookieStore.storeCookies(from: head.headers, for: request.url)
            let body = HTTPConnectionBodySource(
                parser: exchange.parser, connection: exchange.connection,
                pool: self.pool, watchdog: watchdog,
                readSize: self.configuration.readSize)
            if head.status == 101 {
                body.cancel()
                throw HTTPClientError(.invalidResponse, "unexpected 101 Switching Protocols")
            }
            if request.maxRedirects > 0, HTTPRedirectPolicy.isRedirect(head.status),
                let next = HTTPRedirectPolicy.redirectedRequest(
                    from: request, status: head.status,
                    location: head.headers.first(name: "Location"))
            {
                guard redirectsFollowed < request.maxRedirects else {
                    body.cancel()
                    throw HTTPClientError(.tooManyRedirects, "more than \(request.maxRedirects) redirects")
                }
                redirectsFollowed += 1
                await self.discard(body)
                request = next
                continue
            }
            body.releaseIfComplete()
            var source: any HTTPBodySource = body
            if self.configuration.decompressesResponses, !request.headers.contains(name: "Accept-Encoding"),
                let encoding = head.headers.first(name: "Content-Encoding"),
                let decoder = HTTPContentDecoder(contentEncoding: encoding, limit: self.configuration.decompressionLimit)
            {
                source = HTTPDecodingBodySource(base: body, decoder: decoder)
            }
            return HTTPClientResponse(
                status: head.status, reason: head.reason, headers: head.headers,
                url: request.url, body: HTTPResponseBody(source: source))
        }
    }

    /// A body of at least this many bytes is written on its own after the head instead of
    /// being copied behind it (a large polling `POST`): one more write, one copy fewer.
    static let separateBodyWriteThreshold = 32 * 1024

    /// The writes of a request: the head and a small body in one, a large body apart.
    static func requestWrites(method: String, target: String, headers: HTTPHeaders, body: [UInt8]?) -> [[UInt8]] {
        guard let body, body.count >= Self.separateBodyWriteThreshold else {
            return [HTTPRequestWriter.serialize(method: method, target: target, headers: headers, body: body)]
        }
        return [HTTPRequestWriter.serializeHead(method: method, target: target, headers: headers, bodyLength: body.count), body]
    }

    /// Writes the request on a pooled or new connection and reads until the final head.
    private func sendAndReceiveHead(_ request: HTTPClientRequest, watchdog: HTTPIdleWatchdog)
        async throws(HTTPClientError) -> (head: HTTPResponseHead, connection: HTTPConnection, parser: HTTPResponseParser)
    {
        var origin = try HTTPOrigin(url: request.url, tls: request.tls)
        origin.proxy = request.proxy.server(for: request.url)
        let writes = Self.requestWrites(
            method: request.method, target: request.target ?? request.url.httpRequestTarget,
            headers: self.requestHeaders(for: request, origin: origin),
            body: request.body)
        var mayRetry = true
        while true {
            let pooled = self.pool.checkout(origin)
            let connection: HTTPConnection
            if let pooled {
                connection = pooled
            } else {
                connection = try await self.connect(to: origin, timeout: request.idleTimeout)
            }
            var parser = HTTPResponseParser(limits: self.configuration.parserLimits)
            parser.expectResponse(toMethod: request.method)
            var receivedBytes = false
            do throws(HTTPClientError) {
                for bytes in writes {
                    try await connection.write(bytes, watchdog: watchdog)
                }
                while true {
                    let event: HTTPResponseEvent?
                    do throws(HTTPParseError) {
                        event = try parser.next()
                    } catch {
                        throw HTTPClientError(parseError: error)
                    }
                    if case .head(let head)? = event {
                        return (head, connection, parser)
                    }
                    let chunk = try await connection.read(maxLength: self.configuration.readSize, watchdog: watchdog)
                    if chunk.isEmpty {
                        do throws(HTTPParseError) {
                            _ = try parser.finish()
                        } catch {
                            throw HTTPClientError(parseError: error)
                        }
                        throw HTTPClientError(
                            .network(.connectionReset),
                            "the server closed the connection without a response")
                    }
                    receivedBytes = true
                    parser.append(chunk)
                }
            } catch {
                connection.close()
                // A pooled connection the server closed while idle fails before any byte of
                // the response: send the request again on a fresh connection, once.
                if pooled != nil, mayRetry, !receivedBytes, case .network = error.kind {
                    mayRetry = false
                    continue
                }
                throw error
            }
        }
    }

    private func connect(to origin: HTTPOrigin, timeout: TimeAmount) async throws(HTTPClientError) -> HTTPConnection {
        if Task.isCancelled { throw HTTPClientError(.cancelled, "the task was cancelled") }
        let stream: any ByteStream
        let loop = self.eventLoops.next()
        do {
            stream = try await self.connector(origin.endpoint, timeout, loop)
        } catch {
            if Task.isCancelled || error.kind == .cancelled {
                throw HTTPClientError(.cancelled, "the task was cancelled")
            }
            if error.kind == .connectTimedOut {
                throw HTTPClientError(.timedOut, "connecting to \(origin) timed out")
            }
            throw HTTPClientError(error)
        }
        if Task.isCancelled {
            stream.close()
            throw HTTPClientError(.cancelled, "the task was cancelled")
        }
        return HTTPConnection(stream: stream, origin: origin, eventLoop: loop)
    }

    /// `Host` first (unless the caller set one), the caller's fields, then the cookies of the
    /// store merged into one `Cookie` field (RFC 6265 §5.4 asks for a single one).
    private func requestHeaders(for request: HTTPClientRequest, origin: HTTPOrigin) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if !request.headers.contains(name: "Host") {
            headers.add(name: "Host", value: origin.hostHeaderValue)
        }
        for (name, value) in request.headers where name.lowercased() != "cookie" {
            headers.add(name: name, value: value)
        }
        if self.configuration.decompressesResponses, !request.headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        var cookies = request.headers.values(name: "Cookie")
        if let stored = self.cookieStore.cookieHeaderValue(for: request.url) { cookies.append(stored) }
        if !cookies.isEmpty {
            headers.add(name: "Cookie", value: cookies.joined(separator: "; "))
        }
        return headers
    }

    /// Reads and drops a redirect's body so its connection can be reused; a long one is
    /// cut by closing the connection instead.
    private func discard(_ body: HTTPConnectionBodySource) async {
        var drained = 0
        do {
            while let chunk = try await body.next() {
                drained += chunk.count
                if drained > self.configuration.maxRedirectBodyDrain {
                    body.cancel()
                    return
                }
            }
        } catch {
            body.cancel()
        }
    }
}
