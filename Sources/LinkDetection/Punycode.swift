/// Punycode (RFC 3492) encoding of one label, to look up internationalised
/// top-level domains (`рф` is `xn--p1ai` in IANA's list).
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// `label` lowercased and encoded, with the `xn--` prefix when it has non-ASCII scalars.
    static func asciiLabel(_ label: some Collection<Unicode.Scalar>) -> String? {
        if label.allSatisfy(\.isASCII) {
            // The common case, without Unicode case mapping.
            var ascii = ""
            ascii.unicodeScalars.append(contentsOf: label.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 })
            return ascii
        }
        let input = label.map { $0.properties.lowercaseMapping.unicodeScalars.count == 1 ? $0.properties.lowercaseMapping.unicodeScalars.first! : $0 }
        guard input.contains(where: { !$0.isASCII }) else { return String(String.UnicodeScalarView(input)) }
        return encode(input.map(\.value)).map { "xn--" + $0 }
    }

    private static func encode(_ input: [UInt32]) -> String? {
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar($0)!) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = UInt32(initialN), delta = 0, bias = initialBias
        while handled < input.count {
            guard let m = input.filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = Int(m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow else { return nil }
            delta += product
            n = m
            for scalar in input {
                if scalar < n { delta += 1 }
                if scalar == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value)))
    }

    private static func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
