/// Prints numbers the way JavaScript's `Number.prototype.toString` does (ECMA-262 section
/// 6.1.6.1.20, `Number::toString`), which is what `JSON.stringify` writes.
///
/// Swift's `Double.description` already yields the shortest digit string that round-trips;
/// this type re-lays those digits out with ECMAScript's rules: plain notation for decimal
/// exponents in `-6 < n <= 21`, otherwise `d.ddde±x`. So `1.0` prints `1`, `1e21` prints
/// `1e+21`, `1e-7` prints `1e-7`, `-0.0` prints `0`.
package enum JSONNumberFormatter {
    /// Appends the decimal digits of `value`.
    package static func append(_ value: Int, to buffer: inout [UInt8]) {
        if value == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
        }
        // Digits are produced least significant first, then the appended range is reversed.
        let start = buffer.count
        while magnitude > 0 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(magnitude % 10))
            magnitude /= 10
        }
        // Swapped in place: reversing through `buffer[start...]` would copy the slice first.
        var low = start
        var high = buffer.count - 1
        while low < high {
            buffer.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// Appends `value` as `JSON.stringify` would; non-finite values print `null`.
    package static func append(_ value: Double, to buffer: inout [UInt8]) {
        guard value.isFinite else {
            buffer.append(contentsOf: JSONSerializationConstants.null)
            return
        }
        if value == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        // Fast path: integral values within ±2^53 print as integers.
        // (`Int(value)` truncates without calling libm's `trunc`, keeping this target free of libm.)
        if value.magnitude < 9_007_199_254_740_992 {
            let integer = Int(value)
            if Double(integer) == value {
                self.append(integer, to: &buffer)
                return
            }
        }
        // Decompose Swift's shortest round-trip text into digits and a decimal exponent n so that
        // value = 0.d1d2...dk × 10^n. Swift prints at most 17 significant digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digits in
            var digitCount = 0
            var digitsBeforePoint = 0
            var seenPoint = false
            var exponent = 0
            var exponentSign = 1
            var inExponent = false
            for byte in value.magnitude.description.utf8 {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if inExponent {
                        exponent = exponent * 10 + Int(byte &- UInt8(ascii: "0"))
                    } else if digitCount < digits.count {
                        digits[digitCount] = byte
                        digitCount += 1
                        if !seenPoint { digitsBeforePoint += 1 }
                    }
                case UInt8(ascii: "."):
                    seenPoint = true
                case UInt8(ascii: "e"), UInt8(ascii: "E"):
                    inExponent = true
                case UInt8(ascii: "-"):
                    if inExponent { exponentSign = -1 }
                default:
                    break
                }
            }
            var n = digitsBeforePoint + exponentSign * exponent
            // Strip leading zeros (each moves the point) and trailing zeros.
            var leading = 0
            while leading < digitCount, digits[leading] == UInt8(ascii: "0") {
                leading += 1
                n -= 1
            }
            var trailing = digitCount
            while trailing > leading, digits[trailing - 1] == UInt8(ascii: "0") {
                trailing -= 1
            }
            let significant = UnsafeMutableBufferPointer(rebasing: digits[leading..<trailing])
            let k = significant.count
            if value < 0 {
                buffer.append(UInt8(ascii: "-"))
            }
            if k <= n && n <= 21 {
                buffer.append(contentsOf: significant)
                for _ in 0..<(n - k) { buffer.append(UInt8(ascii: "0")) }
            } else if 0 < n && n <= 21 {
                buffer.append(contentsOf: significant[0..<n])
                buffer.append(UInt8(ascii: "."))
                buffer.append(contentsOf: significant[n...])
            } else if -6 < n && n <= 0 {
                buffer.append(UInt8(ascii: "0"))
                buffer.append(UInt8(ascii: "."))
                for _ in 0..<(-n) { buffer.append(UInt8(ascii: "0")) }
                buffer.append(contentsOf: significant)
            } else {
                buffer.append(significant[0])
                if k > 1 {
                    buffer.append(UInt8(ascii: "."))
                    buffer.append(contentsOf: significant[1...])
                }
                buffer.append(UInt8(ascii: "e"))
                let e = n - 1
                buffer.append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                self.append(Int(e.magnitude), to: &buffer)
            }
        }
    }
}
