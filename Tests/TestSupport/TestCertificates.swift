package import Foundation

/// A throwaway CA and server certificates made with the `openssl` command, for TLS tests.
package struct TestCertificates: Sendable {
    package let directory: URL
    package var caCertificatePEM: String { (try? String(contentsOf: self.file("ca.pem"), encoding: .utf8)) ?? "" }

    package func file(_ name: String) -> URL { self.directory.appendingPathComponent(name) }

    /// ``make()`` on a dedicated thread, so the seconds of RSA key generation (and the blocking
    /// wait for `openssl`) never occupy a thread of Swift's cooperative pool.
    package static func makeOffThePool() async throws -> TestCertificates {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try make() }) }.start()
        }
    }

    /// Makes `ca.pem`/`ca.key`, a valid `localhost.pem`/`.key` (SAN localhost, 127.0.0.1),
    /// an `expired.pem`/`.key`, a `wronghost.pem`/`.key` (SAN example.invalid) and an
    /// `untrusted.pem`/`.key` signed by another CA.
    package static func make() throws -> TestCertificates {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("realtime-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = """
            set -e
            cd '\(dir.path)'
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Realtime Test CA' -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' 2>/dev/null
            openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 2 -subj '/CN=Other CA' -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' 2>/dev/null
            # A minimal `openssl ca` setup: the only way in OpenSSL 3.0 to sign a certificate with
            # explicit (past) validity dates (`x509 -req` has no -not_before/-not_after before 3.4).
            printf '%s\n' '[ ca ]' 'default_ca = test_ca' '[ test_ca ]' 'database = ./ca-index.txt' \
              'new_certs_dir = .' 'serial = ./ca-serial' 'default_md = sha256' 'policy = policy_any' \
              'unique_subject = no' 'copy_extensions = none' '[ policy_any ]' 'commonName = supplied' > ca.cnf
            : > ca-index.txt
            echo 1000 > ca-serial
            leaf() { # name san ca days validity(now|expired)
              openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
              printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" > "$1.ext"
              if [ "$5" = expired ]; then
                openssl ca -batch -notext -config ca.cnf -cert "$3.pem" -keyfile "$3.key" -in "$1.csr" -out "$1.pem" \
                  -startdate 20200101000000Z -enddate 20200102000000Z -extfile "$1.ext" 2>/dev/null
              else
                openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -out "$1.pem" -days "$4" -extfile "$1.ext" 2>/dev/null
              fi
              [ -s "$1.pem" ] && [ -s "$1.key" ]
            }
            leaf localhost 'DNS:localhost,IP:127.0.0.1,IP:::1' ca 2 now
            leaf wronghost 'DNS:example.invalid' ca 2 now
            leaf untrusted 'DNS:localhost,IP:127.0.0.1' other-ca 2 now
            leaf expired 'DNS:localhost,IP:127.0.0.1' ca 2 expired
            openssl x509 -in expired.pem -noout -checkend 0 >/dev/null && exit 3
            for f in ca localhost wronghost untrusted expired; do [ -s "$f.pem" ] || exit 4; done
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestServer.StartError(description: "openssl certificate generation failed")
        }
        return TestCertificates(directory: dir)
    }
}
