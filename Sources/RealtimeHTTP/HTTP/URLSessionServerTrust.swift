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

    /// Answers `challenge` for `task`: forwarded to `delegate` when it handles challenges,
    /// else decided from `tls`.
    static func handle(_ challenge: URLAuthenticationChallenge, session: URLSession, task: URLSessionTask,
                       tls: TLSConfiguration, delegate: (any URLSessionDelegate)?,
                       completionHandler: @escaping Completion) {
        if let delegate, Self.forward(challenge, session: session, task: task, to: delegate,
                                      completionHandler: completionHandler) {
            return
        }
        let (disposition, credential) = Self.decide(challenge, tls: tls)
        completionHandler(disposition, credential)
    }

    /// Gives `challenge` to the caller's delegate; `false` when it implements no challenge method.
    private static func forward(_ challenge: URLAuthenticationChallenge, session: URLSession, task: URLSessionTask,
                                to delegate: any URLSessionDelegate, completionHandler: @escaping Completion) -> Bool {
        #if canImport(Darwin)
        // Objective-C optional requirements: `nil` when the delegate does not implement them.
        if let taskDelegate = delegate as? URLSessionTaskDelegate,
           taskDelegate.urlSession?(session, task: task, didReceive: challenge, completionHandler: completionHandler) != nil {
            return true
        }
        return delegate.urlSession?(session, didReceive: challenge, completionHandler: completionHandler) != nil
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

    /// The decision for a challenge nobody else answered.
    static func decide(_ challenge: URLAuthenticationChallenge,
                       tls: TLSConfiguration) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        #if canImport(Security)
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else {
            return (.performDefaultHandling, nil)
        }
        if tls.verification == .none {
            return (.useCredential, URLCredential(trust: trust))
        }
        if tls.verification == .fullVerification, tls.additionalTrustRootsPEM.isEmpty, tls.serverName == nil {
            return (.performDefaultHandling, nil)
        }
        let anchors = tls.additionalTrustRootsPEM.flatMap(PEMCertificates.derEncoded(in:))
            .compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
        if !anchors.isEmpty {
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, false)   // in addition to the system roots
        }
        let host = tls.serverName ?? challenge.protectionSpace.host
        let policy = tls.verification == .noHostnameVerification
            ? SecPolicyCreateBasicX509() : SecPolicyCreateSSL(true, host as CFString)
        SecTrustSetPolicies(trust, policy)
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, URLCredential(trust: trust))
        #else
        return (.performDefaultHandling, nil)
        #endif
    }
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
