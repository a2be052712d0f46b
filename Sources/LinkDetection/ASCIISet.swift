/// A set of ASCII characters as a 128-bit mask: the finders' character
/// classes, tested once per scalar of the text.
struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init(_ characters: String) {
        for scalar in characters.unicodeScalars {
            precondition(scalar.isASCII, "ASCIISet holds ASCII only")
            if scalar.value < 64 { low |= 1 << UInt64(scalar.value) } else { high |= 1 << UInt64(scalar.value - 64) }
        }
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 64 { return low & (1 << UInt64(value)) != 0 }
        if value < 128 { return high & (1 << UInt64(value - 64)) != 0 }
        return false
    }
}
