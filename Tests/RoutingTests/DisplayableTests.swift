import SafeText
import Testing

/// `displayable` escapes exactly the scalars `needsEscape` names, whether the
/// text is read as contiguous bytes (a native string) or scalar by scalar.
@Suite struct DisplayableTests {
    /// Every ASCII scalar and the edges of each class beyond it, alone and
    /// inside printable ASCII (so that one bad scalar among good bytes is seen).
    static let scalars: [Unicode.Scalar] = (0..<0x100).compactMap(Unicode.Scalar.init)
        + [0x061C, 0x00AD, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF, 0xE9, 0x4E2D, 0x1F600]
            .compactMap(Unicode.Scalar.init)

    @Test func eachScalarIsEscapedExactlyWhenItNeedsIt() {
        for scalar in Self.scalars {
            let alone = String(Character(scalar))
            let shown = displayable(alone)
            if needsEscape(scalar) {
                #expect(shown == "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}", "\(scalar.codePointName) shown as \(shown)")
            } else {
                #expect(shown == alone, "\(scalar.codePointName) was changed")
            }
            let inside = "https://a.example/" + alone + "/b"
            #expect(displayable(inside) == "https://a.example/" + shown + "/b", "\(scalar.codePointName) among printable ASCII")
            // After scalars of two, three and four bytes that need no escape:
            // the pass that decodes only what is not ASCII.
            let afterOthers = "é…😀" + alone + "中"
            #expect(displayable(afterOthers) == "é…😀" + shown + "中", "\(scalar.codePointName) after other non-ASCII scalars")
        }
    }

    /// Printable ASCII is read eight bytes at a time: a scalar that needs
    /// an escape is found at every offset of every word, and at the tail.
    @Test func aScalarNeedingAnEscapeIsFoundAtEveryOffset() {
        for bad in ["\u{0}", "\u{1F}", "\u{7F}", "\u{85}", "\u{202E}", "\u{AD}"] {
            for offset in 0..<27 {
                let text = String(repeating: "a", count: offset) + bad + String(repeating: "z", count: 26 - offset)
                #expect(displayable(text).contains("\\u{"), "\(bad.unicodeScalars.first!.codePointName) at \(offset)")
            }
        }
        for offset in 0..<27 {
            let text = String(repeating: "a", count: offset) + "~ …é" + String(repeating: "z", count: 26 - offset)
            #expect(displayable(text) == text)
        }
    }

    /// The blocks `needsEscape` answers for without a table lookup agree with the table.
    @Test func theBlocksAnsweredWithoutATableAgreeWithIt() {
        for value in Array(0xA0...0xFF) + Array(0x2010...0x2027) {
            let scalar = Unicode.Scalar(UInt32(value))!
            #expect(needsEscape(scalar) == (scalar.properties.generalCategory == .format), "\(scalar.codePointName)")
        }
    }

    @Test func printableASCIIComesBackUnchanged() {
        let printable = String(String.UnicodeScalarView((0x20..<0x7F).compactMap(Unicode.Scalar.init)))
        #expect(displayable(printable) == printable)
        // A substring's bytes are not a native string's: the other pass.
        #expect(displayable(printable.dropFirst()) == String(printable.dropFirst()))
        #expect(displayable("line\nforged") == #"line\u{A}forged"#)
    }

    /// `isDisplayableAsIs` (the daemon's log line, checked as bytes) says
    /// yes exactly when `displayable` would leave the text as it is: for
    /// each scalar alone, among printable ASCII at every offset of a word,
    /// and after other non-ASCII scalars.
    @Test func theByteCheckAgreesWithDisplayable() {
        func asIs(_ text: String) -> Bool { Array(text.utf8).withUnsafeBufferPointer(isDisplayableAsIs) }
        for scalar in Self.scalars {
            let alone = String(Character(scalar))
            for text in [alone, "é…😀" + alone + "中"] + (0..<17).map({ String(repeating: "a", count: $0) + alone + "zz" }) {
                #expect(asIs(text) == (displayable(text) == text), "\(scalar.codePointName) in \(text.utf8.count) bytes")
            }
        }
        #expect(asIs(""))
    }
}
