/// The UTS #46 mapping table (`IDNAMappingTable.swift`), decoded on first use.
///
/// Hosts that are plain ASCII never need it: their mapping is lowercasing, so
/// the one-shot CLI pays for decoding only when a URL has a non-ASCII or
/// `xn--` host.
enum IDNAMapping {
    enum Status: UInt8 {
        case valid, mapped, ignored, deviation, disallowed
    }

    struct Row {
        let start: UInt32
        let status: Status
        /// Where the row's replacement starts in `Decoded.replacements`, and how long it is.
        let replacementStart: Int32
        let replacementCount: Int32
    }

    struct Decoded: Sendable {
        let rows: [Row]
        let replacements: [Unicode.Scalar]
    }

    /// Decoded once per process, on first use (Swift globals are lazy and thread-safe).
    static let decoded: Decoded = decode(table)

    /// The status of `scalar`, with its replacement when mapped.
    static func lookup(_ scalar: Unicode.Scalar) -> (Status, ArraySlice<Unicode.Scalar>) {
        let table = decoded
        var low = 0, high = table.rows.count - 1
        // The last row whose start is at or below the scalar.
        while low < high {
            let middle = (low + high + 1) / 2
            if table.rows[middle].start <= scalar.value { low = middle } else { high = middle - 1 }
        }
        let row = table.rows[low]
        let start = Int(row.replacementStart)
        return (row.status, table.replacements[start..<start + Int(row.replacementCount)])
    }

    private static func decode(_ text: String) -> Decoded {
        var rows: [Row] = []
        var replacements: [Unicode.Scalar] = []
        rows.reserveCapacity(8_500)
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            var fields = line.split(separator: UInt8(ascii: " "))[...]
            guard let start = fields.popFirst().flatMap(hex), let code = fields.popFirst()?.first else { continue }
            let status: Status =
                switch code {
                case UInt8(ascii: "V"): .valid
                case UInt8(ascii: "M"): .mapped
                case UInt8(ascii: "I"): .ignored
                case UInt8(ascii: "D"): .deviation
                default: .disallowed
                }
            let first = replacements.count
            for field in fields { if let value = hex(field), let scalar = Unicode.Scalar(value) { replacements.append(scalar) } }
            rows.append(Row(start: start, status: status, replacementStart: Int32(first), replacementCount: Int32(replacements.count - first)))
        }
        return Decoded(rows: rows, replacements: replacements)
    }

    private static func hex(_ digits: some Collection<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(digit - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return value
    }
}
