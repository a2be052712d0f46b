import DispatcherAPI
import Foundation
import Testing
import TestSupport

/// The version is defined once (`DispatcherAPI.version`); everything that
/// states it must agree (issue 17).
@Suite struct VersionTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: Binaries.repository + "/" + path, encoding: .utf8)
    }

    /// The first capture of `pattern` in `text`.
    static func first(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }

    @Test func everyStatementOfTheVersionAgrees() async throws {
        let version = DispatcherAPI.version
        let stated: [(String, String?)] = [
            ("packaging/debian/changelog", Self.first(#"^openurld \(([^)-]+)"#, in: try Self.read("packaging/debian/changelog"))),
            ("packaging/fedora/openurld.spec", Self.first(#"^Version:\s+(\S+)"#, in: try Self.read("packaging/fedora/openurld.spec"))),
            ("packaging/arch/PKGBUILD", Self.first(#"^pkgver=(\S+)"#, in: try Self.read("packaging/arch/PKGBUILD"))),
            ("packaging/org.openurld.Dispatcher1.metainfo.xml",
             Self.first(#"<release version="([^"]+)""#, in: try Self.read("packaging/org.openurld.Dispatcher1.metainfo.xml"))),
            ("packaging/org.openurld.Chooser1.metainfo.xml",
             Self.first(#"<release version="([^"]+)""#, in: try Self.read("packaging/org.openurld.Chooser1.metainfo.xml"))),
            ("CHANGELOG.md", Self.first(#"^## \[(\d[^\]]*)\]"#, in: try Self.read("CHANGELOG.md"))),
            ("docs/man/openurld.1", Self.first(#"^\.TH .* "openurld ([^"]+)""#, in: try Self.read("docs/man/openurld.1"))),
            ("docs/man/openurl.1", Self.first(#"^\.TH .* "openurld ([^"]+)""#, in: try Self.read("docs/man/openurl.1"))),
            ("docs/man/openurld-chooser.1", Self.first(#"^\.TH .* "openurld ([^"]+)""#, in: try Self.read("docs/man/openurld-chooser.1"))),
            ("docs/man/openurld-chooser-dmenu.1",
             Self.first(#"^\.TH .* "openurld ([^"]+)""#, in: try Self.read("docs/man/openurld-chooser-dmenu.1"))),
        ]
        for (file, value) in stated { #expect(value == version, "\(file) says \(value ?? "nothing")") }
        let make = try await run(["make", "-s", "-C", Binaries.repository, "--eval=print-version: ; @echo $(VERSION)", "print-version"])
        #expect(make.stdout == version + "\n", "the Makefile reads \(make.stdout)")
        #expect(try await run([Binaries.openurld, "--version"]).stdout == "openurld \(version)\n")
        #expect(try await run([Binaries.openurl, "--version"]).stdout == "openurl \(version)\n")
        #expect(try await run([Binaries.chooser, "--version"]).stdout == "openurld-chooser \(version)\n")
    }
}
