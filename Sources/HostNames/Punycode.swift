/// Punycode (RFC 3492): the ASCII form of one domain label (`bücher` is
/// `xn--bcher-kva`), for host normalisation and for looking up internationalised
/// top-level domains (`рф` is `xn--p1ai` in IANA's list).
public enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// `label` lowercased and encoded, with the `xn--` prefix when it has non-ASCII scalars.
    public static func asciiLabel(_ label: some Collection<Unicode.Scalar>) -> String? {
        if label.allSatisfy({ $0.isASCII }) {
            // The common case, without Unicode case mapping.
            var ascii = ""
            ascii.unicodeScalars.append(contentsOf: label.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 })
            return ascii
        }
        let input = label.map { $0.properties.lowercaseMapping.unicodeScalars.count == 1 ? $0.properties.lowercaseMapping.unicodeScalars.first! : $0 }
        guard input.contains(where: { !$0.isASCII }) else { return String(String.UnicodeScalarView(input)) }
        return encode(input.map { $0.value }).map { "xn--" + $0 }
    }

    /// The Punycode of `input` (without the `xn--` prefix); `nil` on overflow.
    public static func encode(_ input: [UInt32]) -> String? {
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

    /// The scalars a Punycode string (without the `xn--` prefix) stands for;
    /// `nil` when it is not valid Punycode (RFC 3492 section 6.2).
    public static func decode(_ text: some BidirectionalCollection<UInt8>) -> [UInt32]? {
        var output: [UInt32] = []
        var rest = text[...]
        if let delimiter = text.lastIndex(of: UInt8(ascii: "-")) {
            for byte in text[..<delimiter] {
                guard byte < 0x80 else { return nil }
                output.append(UInt32(byte))
            }
            rest = text[text.index(after: delimiter)...]
        }
        var n = initialN, i = 0, bias = initialBias
        var iterator = rest.makeIterator()
        var next = iterator.next()
        while next != nil {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard let byte = next, let value = digitValue(byte) else { return nil }
                next = iterator.next()
                let (product, overflow) = value.multipliedReportingOverflow(by: w)
                guard !overflow, i <= Int(Int32.max) - product else { return nil }
                i += product
                let t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
                if value < t { break }
                let (weight, weightOverflow) = w.multipliedReportingOverflow(by: base - t)
                guard !weightOverflow, weight <= Int(Int32.max) else { return nil }
                w = weight
                k += base
            }
            bias = adapt(i - oldI, output.count + 1, oldI == 0)
            guard i / (output.count + 1) <= 0x10FFFF - n else { return nil }
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n >= 0x80, Unicode.Scalar(UInt32(n)) != nil else { return nil }
            output.insert(UInt32(n), at: i)
            i += 1
        }
        return output
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
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
