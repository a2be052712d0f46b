import Foundation
import LinkDetection
import Testing

struct TopLevelDomainTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The generated Swift set is the committed IANA snapshot, entry for entry.
    @Test func theGeneratedListMatchesTheSnapshot() throws {
        let data = try String(contentsOfFile: Self.repository + "/data/tlds-alpha-by-domain.txt", encoding: .utf8)
        let snapshot = Set(data.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.lowercased() })
        let generated = try String(contentsOfFile: Self.repository + "/Sources/LinkDetection/TopLevelDomains.swift", encoding: .utf8)
        let entries = Set(generated.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
            .subtracting([LinkDetector.topLevelDomainsVersion])
        #expect(snapshot.count > 1000)
        #expect(entries == snapshot)
        #expect(data.contains("version \(LinkDetector.topLevelDomainsVersion)"))
    }

    /// Every TLD of the snapshot is recognised, internationalised ones
    /// through punycode (a wrong encoder would miss them).
    @Test func internationalisedTopLevelDomainsAreRecognised() {
        for (domain, tld) in [("пример.рф", "xn--p1ai"), ("例子.中国", "xn--fiqs8s"), ("例子.中國", "xn--fiqz9s"),
                              ("مثال.مصر", "xn--wgbh1c"), ("उदाहरण.भारत", "xn--h2brj9c"), ("보기.한국", "xn--3e0b707e")] {
            #expect(LinkDetector().links(in: domain).map(\.url) == ["https://" + domain], "\(domain) (\(tld))")
        }
    }
}

/// The generated region table is the committed data file, row for row.
@Test func theGeneratedPhoneRegionsMatchTheData() throws {
    let data = try String(contentsOfFile: TopLevelDomainTests.repository + "/data/phone-regions.tsv", encoding: .utf8)
    let rows = data.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    #expect(rows.count > 200)
    for row in rows {
        let region = PhoneRegion(row[0])
        #expect(region?.callingCode == row[1], "\(row[0])")
        #expect(region?.internationalPrefixes == row[2].split(separator: ",").map(String.init), "\(row[0])")
        #expect(region?.trunkPrefix == row[3], "\(row[0])")
    }
}
