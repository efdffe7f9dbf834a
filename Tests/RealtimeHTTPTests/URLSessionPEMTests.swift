import Foundation
import Testing

@testable import RealtimeHTTP

/// The PEM reading behind `.security` over URLSession (the certificates handed to the
/// Security framework as anchors on Apple platforms).
@Suite struct URLSessionPEMTests {
    static func block(_ label: String, _ bytes: [UInt8], lineLength: Int = 64) -> String {
        let base64 = Data(bytes).base64EncodedString()
        var lines: [String] = []
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: lineLength, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<end]))
            index = end
        }
        return (["-----BEGIN \(label)-----"] + lines + ["-----END \(label)-----"]).joined(separator: "\n")
    }

    @Test func readsEveryCertificateBlockInOrder() {
        let first = (0..<200).map { UInt8($0) }
        let second: [UInt8] = [0x30, 0x82, 0x01, 0x0a]
        let pem = "a bundle\n" + Self.block("CERTIFICATE", first) + "\n\n" + Self.block("CERTIFICATE", second, lineLength: 3) + "\n"
        #expect(PEMCertificates.derEncoded(in: pem) == [first, second])
    }

    @Test func acceptsCRLFAndSkipsOtherBlocksAndBadBase64() {
        let certificate: [UInt8] = [1, 2, 3, 4, 5]
        let pem = [
            Self.block("PRIVATE KEY", [9, 9, 9]),
            "-----BEGIN CERTIFICATE-----\n!!not base64!!\n-----END CERTIFICATE-----",
            Self.block("CERTIFICATE", certificate),
        ].joined(separator: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(PEMCertificates.derEncoded(in: pem) == [certificate])
        #expect(PEMCertificates.derEncoded(in: "") == [])
        #expect(PEMCertificates.derEncoded(in: "-----BEGIN CERTIFICATE-----\nAAAA") == [])
    }
}
