import Foundation
import Testing
import TestSupport

/// The release build's flags are defined once, in `scripts/release-flags`
/// (issue 27: the daemon's functions laid out together, relocations
/// packed); every place that makes a release build takes them from there.
@Suite struct ReleaseBuildTests {
    static let sites = ["Makefile", "packaging/debian/rules", "packaging/arch/PKGBUILD", "packaging/fedora/openurld.spec", "bench/run", "bench/run.py"]

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: Binaries.repository + "/" + path, encoding: .utf8)
    }

    /// No build site spells release flags of its own: each one reads
    /// scripts/release-flags, and no `swift build` command says `-c release`.
    @Test(arguments: sites)
    func buildSiteTakesTheFlagsFromTheScript(_ path: String) throws {
        let text = try Self.read(path)
        #expect(text.contains("scripts/release-flags"), "\(path) does not read scripts/release-flags")
        let commands = text.split(separator: "\n").filter { !$0.drop { $0 == " " || $0 == "\t" }.hasPrefix("#") }
        for line in commands where line.contains("swift build") {
            #expect(!line.contains("-c release") && !line.contains("--static-swift-stdlib"), "\(path) spells its own flags: \(line)")
        }
    }

    /// The flags name the ordering file by an absolute path (the link runs
    /// elsewhere), and it exists and lists functions.
    @Test func theFlagsNameAnOrderingFileThatExists() async throws {
        let flags = try await run([Binaries.repository + "/scripts/release-flags"])
        #expect(flags.status == 0)
        let words = flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        for expected in ["-c", "release", "--static-swift-stdlib", "--disable-local-rpath", "-function-sections", "-use-ld=lld"] {
            #expect(words.contains(expected), "scripts/release-flags lacks \(expected): \(flags.stdout)")
        }
        let prefix = "--symbol-ordering-file="
        let path = try #require(words.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        #expect(path == Binaries.repository + "/scripts/symbol-order.txt")
        let listed = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(listed.count > 1000, "scripts/symbol-order.txt lists \(listed.count) functions")
    }
}
