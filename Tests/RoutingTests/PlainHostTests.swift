import Testing

@testable import HostNames

/// `HostName.parse` reads the common host (ASCII letters, digits, `-`, `.`)
/// in one pass of its own over the bytes where they lie; the standard's full
/// path (`parseInFull`) is the reference, and the two must agree on every
/// host the short cut takes.
@Suite struct PlainHostTests {
    static let hosts = [
        "bench.example", "Bench.EXAMPLE", "bench.example.", "localhost", "a", "-", ".", "..", "a..b", ".a", "a.",
        "xn--", "XN--a.example", "Xn--zca.example", "xN--ab-.example", "xn--999999999.example", "example.XN--LS8H",
        "xn--bcher-kva.example", "127.0.0.1", "127.0.0.1.", "127.1", "0X7F.1", "0x7f.0x1", "0x", "a.0x", "a.0X",
        "0xg", "1.2.3.4.5", "256.0.0.0", "4294967295", "4294967296", "08", "09.example", "example.09", "1e3",
        "a-b.c-d", "EXAMPLE.COM.",
    ]

    @Test(arguments: hosts)
    func theShortCutAnswersAsTheStandardsStepsDo(_ host: String) {
        #expect(HostName.parse(host) == HostName.parseInFull(Array(host.utf8)), "\(host)")
        // Also from a substring of a longer string, as URLs hand hosts over.
        let url = "https://" + host + ":443/x"
        let start = url.utf8.index(url.utf8.startIndex, offsetBy: 8)
        let end = url.utf8.index(start, offsetBy: host.utf8.count)
        #expect(HostName.parse(url[start..<end]) == HostName.parseInFull(Array(host.utf8)), "\(host) in \(url)")
    }

    @Test func plainHostsAreLowercasedAndNumbersAreAddresses() {
        #expect(HostName.parse("Bench.EXAMPLE") == .success(.domain("bench.example")))
        #expect(HostName.parse("0X7F.1") == .success(.ipv4("127.0.0.1")))
        #expect(HostName.parse("127.0.0.1.") == .success(.ipv4("127.0.0.1")))
        #expect((try? HostName.parse("a.0x").get()) == nil)  // ends in a number, and "a" is not one
    }
}
