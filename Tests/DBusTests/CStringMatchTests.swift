import Testing

@testable import DBus

/// Routing compares header fields as libdbus holds them (`equals(cString:)`):
/// equal exactly when `String(cString:)` would be, and never reading past
/// the C string's terminator.
@Suite struct CStringMatchTests {
    static let texts = ["", "a", "ab", "Add", "Add2", "/org/openurld/Dispatcher1", "/org/openurld/Dispatcher", "é", "e\u{301}",
                        String(repeating: "x", count: 15), String(repeating: "x", count: 16)]

    @Test func equalExactlyWhenTheBytesAre() {
        for text in Self.texts {
            for other in Self.texts {
                other.withCString { cString in
                    #expect(text.equals(cString: cString) == (text == String(cString: cString) && text.utf8.elementsEqual(other.utf8)),
                            "\(text.debugDescription) against \(other.debugDescription)")
                }
            }
        }
    }

    /// A string holding a NUL stops at the C string's end, and is not equal to
    /// its prefix (libdbus's header strings never hold one).
    @Test func aNULIsNeverReadPast() {
        let bytes: [CChar] = [0x41, 0x00, 0x42, 0x00]  // "A", then bytes past the end that must not count
        bytes.withUnsafeBufferPointer { buffer in
            #expect(!"A\u{0}B".equals(cString: buffer.baseAddress!))
            #expect("A".equals(cString: buffer.baseAddress!))
            #expect(!"AB".equals(cString: buffer.baseAddress!))
        }
    }

    /// A string made from a slice of a longer one compares by its own bytes.
    @Test func aSubstringMadeStringCompares() {
        let text = String("xx/org/openurld".dropFirst(2))
        #expect(text.equals(cString: "/org/openurld"))
        #expect(!text.equals(cString: "/org/openurl"))
    }
}
