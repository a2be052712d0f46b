import ChooserService
import Routing
import Testing
import TestSupport

/// The chooser's address wraps without hyphens that are not in the URL: the
/// window's own markup (`LinkPresentation.markup`) laid out by Pango at the
/// window's width, the way a wrapping label lays it out, by a small C peer
/// that counts the line ends drawn with a hyphen the text lacks.
@Suite struct AddressWrappingTests {
    static func breaks(_ markup: String, width: Int = 440) async throws -> (lines: Int, inserted: Int) {
        let peer = try await Peers.build("pango-breaks", packages: ["pangocairo"])
        let result = try await run([peer, markup, String(width)])
        #expect(result.status == 0, "\(result.stderr)")
        let words = result.stdout.split(separator: " ")
        return (Int(words[1]) ?? 0, Int(words[3].trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
    }

    @Test(arguments: [
        "https://example.com/" + String(repeating: "averylongpathsegment", count: 30),
        "https://" + String(repeating: "sub", count: 20) + ".example.com/" + String(repeating: "x", count: 300),
        "https://example.com/search?q=" + String(repeating: "wordswithoutspaces", count: 25),
    ])
    func aLongAddressWrapsWithoutAddedHyphens(url: String) async throws {
        let presentation = LinkPresentation(try ValidatedURL(url))
        let wrapped = try await Self.breaks(presentation.markup)
        #expect(wrapped.lines > 3, "the address does wrap")
        #expect(wrapped.inserted == 0, "\(wrapped.inserted) line ends drawn with a hyphen not in the URL")
        // The detector itself: the same text without the window's span gets Pango's hyphens.
        let bare = try await Self.breaks(xmlEscapedForTest(url))
        #expect(bare.inserted > 0, "Pango added no hyphens: the check would pass whatever the markup")
    }

    func xmlEscapedForTest(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
