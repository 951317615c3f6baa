/// Punycode (RFC 3492): a label's code points as the letters, digits and hyphens a DNS name can
/// hold. Encoding writes the basic (ASCII) code points as they are, a hyphen when there were any,
/// and then the deltas in lower case, as IDNA wants them; no mixed-case annotation.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 0x80
    private static let delimiter = UInt8(ascii: "-")

    /// RFC 3492 section 6.3. nil only on overflow (section 6.4), which no label within the length
    /// of a mail address can reach.
    static func encode(_ input: [Unicode.Scalar]) -> String? {
        var output: [UInt8] = input.filter(\.isASCII).map { UInt8($0.value) }
        let basic = output.count
        var handled = basic
        if basic > 0 { output.append(delimiter) }
        var n = initialN, delta = 0, bias = initialBias
        while handled < input.count {
            // The smallest code point not yet handled; one exists while `handled < input.count`.
            guard let m = input.lazy.map({ Int($0.value) }).filter({ $0 >= n }).min() else { return nil }
            let (step, stepOverflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !stepOverflow, delta <= maxDelta - step else { return nil }
            delta += step
            n = m
            for scalar in input {
                let c = Int(scalar.value)
                if c < n {
                    delta += 1
                    guard delta <= maxDelta else { return nil }
                }
                guard c == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = threshold(k, bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, numPoints: handled + 1, firstTime: handled == basic)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3492 section 6.2: nil for input that is not Punycode (a non-basic byte, a bad digit,
    /// overflow, or a code point outside Unicode's scalars).
    static func decode(_ input: String) -> [Unicode.Scalar]? {
        let bytes = Array(input.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let split = bytes.lastIndex(of: delimiter) ?? 0
        var output: [Int] = bytes[..<split].map(Int.init)
        var n = initialN, i = 0, bias = initialBias
        var index = split > 0 ? split + 1 : 0
        while index < bytes.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard index < bytes.count, let d = digitValue(bytes[index]) else { return nil }
                index += 1
                let (product, productOverflow) = d.multipliedReportingOverflow(by: w)
                guard !productOverflow, i <= maxDelta - product else { return nil }
                i += product
                let t = threshold(k, bias)
                if d < t { break }
                let (next, nextOverflow) = w.multipliedReportingOverflow(by: base - t)
                guard !nextOverflow, next <= maxDelta else { return nil }
                w = next
                k += base
            }
            bias = adapt(i - oldI, numPoints: output.count + 1, firstTime: oldI == 0)
            guard i / (output.count + 1) <= maxDelta - n else { return nil }
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= 0x10FFFF else { return nil }
            output.insert(n, at: i)
            i += 1
        }
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(output.count)
        for value in output {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { return nil }
            scalars.append(scalar)
        }
        return scalars
    }

    /// RFC 3492's `maxint` is 2^26 - 1 for 32-bit arithmetic; a larger bound keeps the same checks.
    private static let maxDelta = Int(Int32.max)

    private static func threshold(_ k: Int, _ bias: Int) -> Int {
        k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
    }

    /// Section 6.1.
    private static func adapt(_ delta: Int, numPoints: Int, firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ d: Int) -> UInt8 {
        d < 26 ? UInt8(ascii: "a") + UInt8(d) : UInt8(ascii: "0") + UInt8(d - 26)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }
}
