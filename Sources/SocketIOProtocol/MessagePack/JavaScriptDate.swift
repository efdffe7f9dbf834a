package import EngineIOProtocol

/// The JSON form of a JavaScript `Date` that notepack.io sent as fixext 8, type 0.
///
/// ECMA-262 section 21.4.4.36 `Date.prototype.toISOString` (`YYYY-MM-DDTHH:mm:ss.sssZ`, years
/// outside 0-9999 as `±YYYYYY`, section 21.4.1.32) and section 21.4.1.31 (a time value is
/// valid within ±8.64e15 ms of the epoch; `JSON.stringify` writes an invalid Date as `null`).
/// ``MessagePackDecoder`` delivers this string so that a handler sees what the default JSON
/// parser would have given it for the same emit.
package enum JavaScriptDate {
    /// The largest distance from the epoch of a valid time value, in milliseconds.
    package static let maximumMilliseconds: Int64 = 8_640_000_000_000_000

    /// `Date.prototype.toJSON` of the time `millisecondsSinceEpoch`: an ISO 8601 string, or
    /// ``JSONValue/null`` outside the valid range.
    package static func json(millisecondsSinceEpoch milliseconds: Int64) -> JSONValue {
        guard milliseconds >= -Self.maximumMilliseconds, milliseconds <= Self.maximumMilliseconds else {
            return .null
        }
        return .string(Self.isoString(millisecondsSinceEpoch: milliseconds))
    }

    /// `Date.prototype.toISOString` of a valid time value.
    package static func isoString(millisecondsSinceEpoch milliseconds: Int64) -> String {
        let millisecondsPerDay: Int64 = 86_400_000
        var days = milliseconds / millisecondsPerDay
        var ofDay = milliseconds % millisecondsPerDay
        if ofDay < 0 {
            days -= 1
            ofDay += millisecondsPerDay
        }
        // Days to a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date
        // Algorithms", civil_from_days).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        var text = ""
        if year >= 0, year <= 9_999 {
            text += Self.padded(year, 4)
        } else {
            text += (year < 0 ? "-" : "+") + Self.padded(year.magnitude, 6)
        }
        text += "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
        text += "T" + Self.padded(ofDay / 3_600_000, 2) + ":" + Self.padded(ofDay / 60_000 % 60, 2)
        text += ":" + Self.padded(ofDay / 1_000 % 60, 2) + "." + Self.padded(ofDay % 1_000, 3) + "Z"
        return text
    }

    private static func padded(_ value: some BinaryInteger, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
