#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif
#if canImport(Security)
import Security
#endif

/// How the URLSession backends answer authentication challenges: the caller's
/// `URLSessionDelegate` first (upstream's `.sessionDelegate`), then a server-trust decision
/// from the request's ``TLSConfiguration``.
///
/// Server trust is evaluated with the Security framework, so it exists on Apple platforms
/// only; this is the one place of the package that Linux cannot type-check.
/// FoundationNetworking on Linux issues no server-trust challenge (libcurl verifies against
/// the system store by itself), so there a ``TLSConfiguration`` other than the default is not
/// applied by the URLSession backends.
enum URLSessionServerTrust {
    typealias Completion = @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

    /// A server-trust evaluation that rejected the server. Apple's URLSession completes a task
    /// whose challenge was answered `.cancelAuthenticationChallenge` with `NSURLErrorCancelled`,
    /// the same error as a cancellation by the caller, so the delegate hands this to the task's
    /// bridge (or WebSocket handle), which reports it instead of that cancellation.
    struct Failure: Error, Sendable {
        var kind: NetworkError.Kind
        var message: String
    }

    /// What ``decide(_:tls:)`` answers.
    struct Decision {
        var disposition: URLSession.AuthChallengeDisposition
        var credential: URLCredential?
        /// Set when the server's certificate was rejected (the disposition then cancels).
        var failure: Failure?
    }

    /// Answers `challenge` for `task`: forwarded to `delegate` when it handles challenges of
    /// that kind, else decided from `tls`; `rejected` learns why a server was not trusted.
    static func handle(
        _ challenge: URLAuthenticationChallenge, session: URLSession, task: URLSessionTask,
        tls: TLSConfiguration, delegate: (any URLSessionDelegate)?,
        rejected: (Failure) -> Void = { _ in },
        completionHandler: @escaping Completion
    ) {
        if let delegate,
            Self.forward(
                challenge, session: session, task: task, to: delegate,
                completionHandler: completionHandler)
        {
            return
        }
        let decision = Self.decide(challenge, tls: tls)
        if let failure = decision.failure { rejected(failure) }
        completionHandler(decision.disposition, decision.credential)
    }

    /// Gives `challenge` to the caller's delegate; `false` when it implements no method that
    /// URLSession would call for this challenge.
    private static func forward(
        _ challenge: URLAuthenticationChallenge, session: URLSession, task: URLSessionTask,
        to delegate: any URLSessionDelegate, completionHandler: @escaping Completion
    ) -> Bool {
        #if canImport(Darwin)
        // As Apple's URLSession routes challenges when the caller's delegate is the session's
        // (upstream's `.sessionDelegate`): the connection-level kinds (server trust, client
        // certificate, NTLM, Negotiate) go to `urlSession(_:didReceive:completionHandler:)`,
        // else to the task-level method; every other kind (Basic, Digest, proxies) only to the
        // task-level method ("If this delegate is not implemented, the session specific
        // authentication challenge will *NOT* be called", NSURLSession.h).
        // Objective-C optional requirements: `nil` when the delegate does not implement them.
        if Self.isConnectionLevel(challenge),
            delegate.urlSession?(session, didReceive: challenge, completionHandler: completionHandler) != nil
        {
            return true
        }
        if let taskDelegate = delegate as? URLSessionTaskDelegate,
            taskDelegate.urlSession?(session, task: task, didReceive: challenge, completionHandler: completionHandler) != nil
        {
            return true
        }
        return false
        #else
        // FoundationNetworking's protocols have default implementations (default handling).
        if let taskDelegate = delegate as? URLSessionTaskDelegate {
            taskDelegate.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        } else {
            delegate.urlSession(session, didReceive: challenge, completionHandler: completionHandler)
        }
        return true
        #endif
    }

    #if canImport(Darwin)
    /// The authentication methods Apple's URLSession hands to the session-level delegate method.
    private static func isConnectionLevel(_ challenge: URLAuthenticationChallenge) -> Bool {
        switch challenge.protectionSpace.authenticationMethod {
        case NSURLAuthenticationMethodServerTrust, NSURLAuthenticationMethodClientCertificate,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate:
            true
        default:
            false
        }
    }
    #endif

    /// The decision for a challenge nobody else answered.
    ///
    /// - `.none`: the server's trust is accepted as it is, unevaluated.
    /// - `.fullVerification` without extra roots or `serverName`: URLSession's default handling.
    /// - Otherwise the trust is evaluated here: `additionalTrustRootsPEM` become anchors in
    ///   addition to the system's (`SecTrustSetAnchorCertificates`, then
    ///   `SecTrustSetAnchorCertificatesOnly(false)`: the first alone would trust only them), under
    ///   the SSL server policy for `serverName` (else the challenge's host), or for no host name
    ///   with `.noHostnameVerification` (`SecPolicyCreateSSL(true, nil)`: the chain, validity
    ///   and server-auth usage are still checked). A self-signed server certificate given as
    ///   an extra root is its own anchor; it must still meet Apple's rules for TLS server
    ///   certificates (the host in subjectAltName, RSA keys of 2048 bits or more, SHA-2, at most
    ///   825 days of validity), which OpenSSL on the native stack does not impose.
    static func decide(_ challenge: URLAuthenticationChallenge, tls: TLSConfiguration) -> Decision {
        #if canImport(Security)
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let trust = challenge.protectionSpace.serverTrust
        else {
            return Decision(disposition: .performDefaultHandling)
        }
        if tls.verification == .none {
            return Decision(disposition: .useCredential, credential: URLCredential(trust: trust))
        }
        if tls.verification == .fullVerification, tls.additionalTrustRootsPEM.isEmpty, tls.serverName == nil {
            return Decision(disposition: .performDefaultHandling)
        }
        let anchors = tls.additionalTrustRootsPEM.flatMap(PEMCertificates.derEncoded(in:))
            .compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
        if !anchors.isEmpty {
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, false)  // in addition to the system roots
        }
        let host: String? =
            tls.verification == .noHostnameVerification
            ? nil : (tls.serverName ?? challenge.protectionSpace.host)
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host.map { $0 as CFString }))
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else {
            return Decision(disposition: .cancelAuthenticationChallenge, failure: Self.failure(error, host: host))
        }
        return Decision(disposition: .useCredential, credential: URLCredential(trust: trust))
        #else
        return Decision(disposition: .performDefaultHandling)
        #endif
    }

    #if canImport(Security)
    /// Why `SecTrustEvaluateWithError` rejected the server (its error is an `OSStatus` code).
    private static func failure(_ error: CFError?, host: String?) -> Failure {
        let message =
            "the server's certificate is not trusted"
            + (host.map { " for \($0)" } ?? "")
            + (error.map { ": \(($0 as any Error).localizedDescription)" } ?? "")
        let code = error.map { CFErrorGetCode($0) } ?? 0
        switch code {
        case Int(errSecHostNameMismatch): return Failure(kind: .hostnameMismatch, message: message)
        case Int(errSecCertificateExpired), Int(errSecCertificateNotValidYet):
            return Failure(kind: .certificateExpired, message: message)
        default: return Failure(kind: .certificateUntrusted, message: message)
        }
    }
    #endif
}

/// The DER certificates of PEM text (`-----BEGIN CERTIFICATE-----` blocks), as the Security
/// framework takes them.
package enum PEMCertificates {
    /// Every certificate block of `pem`, base64-decoded; blocks that do not decode are skipped.
    package static func derEncoded(in pem: String) -> [[UInt8]] {
        var certificates: [[UInt8]] = []
        var body: String?
        for line in pem.split(whereSeparator: \.isNewline) {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let text = body, let data = Data(base64Encoded: text) { certificates.append([UInt8](data)) }
                body = nil
            } else if body != nil {
                body! += line
            }
        }
        return certificates
    }
}
