@testable import HostNames
import Testing

/// The UTS #46 table, decoded in one pass over its bytes: a row for every
/// line, and the statuses and replacements of known code points.
@Suite struct IDNAMappingTests {
    @Test func everyLineIsARowAndKnownScalarsMapAsUTS46Says() {
        let lines = IDNAMapping.table.split(separator: "\n").filter { !$0.trimmingPrefix(" ").isEmpty }
        #expect(IDNAMapping.decoded.rows.count == lines.count)
        func lookup(_ value: UInt32) -> (IDNAMapping.Status, [UInt32]) {
            let (status, replacement) = IDNAMapping.lookup(Unicode.Scalar(value)!)
            return (status, replacement.map(\.value))
        }
        #expect(lookup(0x41) == (.mapped, [0x61]))              // A → a
        #expect(lookup(0x61) == (.valid, []))
        #expect(lookup(0xC4) == (.mapped, [0xE4]))              // Ä → ä
        #expect(lookup(0xDF) == (.deviation, [0x73, 0x73]))     // ß, transitional ss
        #expect(lookup(0xAD) == (.ignored, []))                 // soft hyphen
        #expect(lookup(0x2488) == (.disallowed, []))            // ⒈
        #expect(lookup(0x3002) == (.mapped, [0x2E]))            // ideographic full stop → .
        #expect(lookup(0xFB01) == (.mapped, [0x66, 0x69]))      // ﬁ → fi
        #expect(lookup(0x10FFFF) == (.disallowed, []))
    }
}
