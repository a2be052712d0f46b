import Routing
import SafeText
import Testing
import TestSupport

/// A path is bytes (issue 25): `EscapedBytes` carries the ones that are not
/// UTF-8 through a `String` and back, and `file:` URLs encode and decode
/// the bytes themselves.
@Suite struct PathBytesTests {
    @Test func everyByteStringComesBackAsItWas() {
        // Fixed cases: a Latin-1 name, a lone continuation byte, a truncated
        // sequence, an overlong "/", a surrogate's encoding, a character of
        // the escape block itself (U+10FFE9), NUL-free random bytes.
        var cases: [[UInt8]] = [
            [0x63, 0x61, 0x66, 0xE9], [0x80], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
            [0xF4, 0x8F, 0xBF, 0xA9], [0xF4, 0x90, 0x80, 0x80], [0xFE, 0xFF], Array("café ✓".utf8), [],
        ]
        var generator = SplitMix(seed: 25)
        for _ in 0..<2000 {
            cases.append((0..<Int(generator.next() % 12)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        }
        for bytes in cases {
            let text = EscapedBytes.decode(bytes)
            #expect(EscapedBytes.encode(text) == bytes, "\(bytes)")
            #expect(EscapedBytes.withCString(text) { pointer in
                (0..<bytes.count).allSatisfy { UInt8(bitPattern: pointer[$0]) == bytes[$0] } && pointer[bytes.count] == 0
            })
        }
        // Below U+10FF80 nothing is an escape: no text encodes to a NUL it does not hold.
        let low = String(Unicode.Scalar(EscapedBytes.base)!) + String(Unicode.Scalar(EscapedBytes.base + 0x2F)!)
        #expect(!EscapedBytes.encode(low).contains(0) && EscapedBytes.encode(low) == Array(low.utf8))
        #expect(EscapedBytes.decode(Array(low.utf8)) == low)
        // Valid UTF-8 outside the escape block is its own text, unchanged.
        #expect(EscapedBytes.decode(Array("café ✓".utf8)) == "café ✓")
        #expect(!EscapedBytes.hasEscapes(EscapedBytes.decode(Array("café ✓".utf8))))
    }

    @Test func escapedBytesAreShownAsTheBytesTheyAre() {
        let name = EscapedBytes.decode([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x74, 0x78, 0x74, 0x05])
        #expect(displayable(name) == #"caf\xE9.txt\u{5}"#)
        #expect(needsEscape(Unicode.Scalar(EscapedBytes.base + 0xE9)!))
    }

    /// `needsEscape` looks up one property, the general category: every
    /// bidirectional control must be a format character for that to hold.
    @Test func everyBidiControlIsEscaped() {
        let controls = (0...0x10FFFF).compactMap(Unicode.Scalar.init(_:)).filter(\.properties.isBidiControl)
        #expect(controls.count >= 12)
        #expect(controls.allSatisfy(needsEscape), "\(controls.filter { !needsEscape($0) }.map(\.codePointName))")
    }

    @Test func fileURLsCarryTheBytesOfThePath() throws {
        let path = EscapedBytes.decode(Array("/srv/".utf8) + [0x63, 0x61, 0x66, 0xE9] + Array(" n°.txt".utf8))
        let url = FileURL.forPath(path, workingDirectory: "/")
        #expect(url == "file:///srv/caf%E9%20n%C2%B0.txt")
        #expect(percentDecodedBytes(Substring(try ValidatedURL(url).path)) == EscapedBytes.encode(path))
        #expect(percentDecoded("caf%E9") == nil, "the text form still asks for UTF-8")
        #expect(percentDecodedBytes("caf%E") == nil, "a malformed escape")
    }
}
