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
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// One pass over the table's bytes, without a line or a field ever made
    /// a value of its own (splitting them cost 33 million instructions, the
    /// first non-ASCII host of every process).
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> Decoded {
        var rows: [Row] = []
        var replacements: [Unicode.Scalar] = []
        rows.reserveCapacity(8_500)
        replacements.reserveCapacity(8_000)
        var index = 0
        let count = bytes.count
        func skipSpaces() { while index < count, bytes[index] == UInt8(ascii: " ") { index += 1 } }
        func field() -> (value: UInt32, code: UInt8)? {
            skipSpaces()
            guard index < count, bytes[index] != UInt8(ascii: "\n") else { return nil }
            let first = bytes[index]
            var value: UInt32 = 0
            var isHex = true
            while index < count, bytes[index] != UInt8(ascii: " "), bytes[index] != UInt8(ascii: "\n") {
                switch bytes[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(bytes[index] - UInt8(ascii: "0"))
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(bytes[index] - UInt8(ascii: "A") + 10)
                default: isHex = false
                }
                index += 1
            }
            return (isHex ? value : UInt32.max, first)
        }
        while index < count {
            if let (start, _) = field(), start != UInt32.max, let (_, code) = field() {
                let status: Status =
                    switch code {
                    case UInt8(ascii: "V"): .valid
                    case UInt8(ascii: "M"): .mapped
                    case UInt8(ascii: "I"): .ignored
                    case UInt8(ascii: "D"): .deviation
                    default: .disallowed
                    }
                let first = replacements.count
                while let (value, _) = field() {
                    if let scalar = Unicode.Scalar(value) { replacements.append(scalar) }
                }
                rows.append(Row(start: start, status: status, replacementStart: Int32(first), replacementCount: Int32(replacements.count - first)))
            }
            // The rest of the line, and its end.
            while index < count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            index += 1
        }
        return Decoded(rows: rows, replacements: replacements)
    }
}
