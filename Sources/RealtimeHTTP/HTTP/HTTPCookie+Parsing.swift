package import Foundation
import HTTP1Codec

extension HTTPCookie {
    /// Longest name plus value accepted (RFC 6265 §6.1 asks for at least 4096 bytes).
    static let maxNameValueBytes = 4096

    /// Parses a `Set-Cookie` field value received in a response to `url` (RFC 6265 §5.2,
    /// §5.3): name and value, `Expires`, `Max-Age` (which wins over `Expires`), `Domain`
    /// (which must domain-match the request host), `Path`, `Secure`, `HttpOnly`.
    ///
    /// - Returns: the cookie, or `nil` when the user agent must ignore it. An already expired
    ///   cookie is returned (storing it deletes a stored cookie of the same name).
    package static func parse(setCookie header: String, requestURL url: URL, now: Date = Date()) -> HTTPCookie? {
        guard let requestHost = url.host, !requestHost.isEmpty else { return nil }
        let host = Self.canonicalDomain(requestHost)
        var parts = header.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = String(pair[..<equals].trimmingHTTPWhitespace())
        let value = String(pair[pair.index(after: equals)...].trimmingHTTPWhitespace())
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maxNameValueBytes else { return nil }

        var expires: Date?
        var maxAgeExpiry: Date?
        var domainAttribute: String?
        var pathAttribute: String?
        var isSecure = false
        var isHTTPOnly = false
        for attribute in parts {
            let attributeName: Substring
            let attributeValue: Substring
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = attribute[..<equals].trimmingHTTPWhitespace()
                attributeValue = attribute[attribute.index(after: equals)...].trimmingHTTPWhitespace()
            } else {
                attributeName = attribute.trimmingHTTPWhitespace()
                attributeValue = ""
            }
            switch attributeName.lowercased() {
            case "expires":
                if let date = HTTPCookieDateParser.parse(attributeValue) { expires = date }
            case "max-age":
                guard let first = attributeValue.first, first == "-" || first.isASCII && first.isNumber,
                    attributeValue.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
                else { continue }
                let seconds = Int(attributeValue) ?? (first == "-" ? Int.min : Int.max)
                if seconds <= 0 {
                    maxAgeExpiry = Date(timeIntervalSince1970: 0)
                } else {
                    maxAgeExpiry = now.addingTimeInterval(TimeInterval(min(seconds, 400 * 24 * 3600)))
                }
            case "domain":
                if !attributeValue.isEmpty { domainAttribute = Self.canonicalDomain(String(attributeValue)) }
            case "path":
                if attributeValue.first == "/" { pathAttribute = String(attributeValue) }
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            default:
                continue
            }
        }

        var isHostOnly = true
        var domain = host
        if let domainAttribute, !domainAttribute.isEmpty {
            guard Self.domainMatches(host: host, domain: domainAttribute) else { return nil }
            // Without a public suffix list, at least refuse a bare top-level label
            // (`Domain=com`) unless it is the host itself (`localhost`).
            guard domainAttribute.contains(".") || domainAttribute == host else { return nil }
            isHostOnly = false
            domain = domainAttribute
        }
        let requestPath = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? "/"
        return HTTPCookie(
            name: name, value: value, domain: domain, isHostOnly: isHostOnly,
            path: pathAttribute ?? Self.defaultPath(for: requestPath),
            expires: maxAgeExpiry ?? expires, isSecure: isSecure, isHTTPOnly: isHTTPOnly,
            creationTime: now)
    }
}

/// The cookie-date algorithm of RFC 6265 §5.1.1 (accepts every common date format).
enum HTTPCookieDateParser {
    static func parse(_ text: Substring) -> Date? {
        var hour: Int?
        var minute = 0
        var second = 0
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        for token in text.utf8.split(whereSeparator: Self.isDelimiter) {
            if hour == nil, let time = Self.parseTime(token) {
                (hour, minute, second) = time
            } else if dayOfMonth == nil, let day = Self.leadingDigits(token, min: 1, max: 2) {
                dayOfMonth = day
            } else if month == nil, token.count >= 3,
                let index = months.firstIndex(of: String(decoding: token.prefix(3), as: UTF8.self).lowercased())
            {
                month = index + 1
            } else if year == nil, let value = Self.leadingDigits(token, min: 2, max: 4) {
                year = value
            }
        }
        guard let hour, let dayOfMonth, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601, hour <= 23, minute <= 59, second <= 59,
            dayOfMonth >= 1, dayOfMonth <= Self.daysIn(month: month, year: year)
        else { return nil }
        let days = Self.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `min*max DIGIT ( non-digit *OCTET )`.
    private static func leadingDigits(_ token: Substring.UTF8View.SubSequence, min: Int, max: Int) -> Int? {
        let digits = token.prefix(while: Self.isDigit)
        guard digits.count >= min, digits.count <= max else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT ( non-digit *OCTET )`.
    private static func parseTime(_ token: Substring.UTF8View.SubSequence) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var rest = token[...]
        for index in 0..<3 {
            let digits = rest.prefix(while: Self.isDigit)
            guard (1...2).contains(digits.count) else { return nil }
            fields.append(digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(digits.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
