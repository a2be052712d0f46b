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

    /// The release build is optimised with the committed profile: the flags
    /// name the indexed file made from scripts/pgo-profile.proftext (which
    /// the toolchain's llvm-profdata must read, or the script fails), split
    /// rarely run code off, and generate every file's code again (the
    /// front end would otherwise keep objects built before the profile
    /// changed). The build that records a profile names functions as the
    /// release build does, and bench/pgo-profile gets that llvm-profdata
    /// from the script.
    @Test func theFlagsUseTheProfile() async throws {
        let flags = try await run([Binaries.repository + "/scripts/release-flags"])
        #expect(flags.status == 0, "\(flags.stderr)")
        let words = flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        let prefix = "-ir-profile-use="
        let path = try #require(words.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) },
                                "scripts/release-flags names no profile: \(flags.stderr)")
        #expect(path.hasPrefix(Binaries.repository + "/.build/pgo/") && path.hasSuffix(".profdata"))
        #expect(FileManager.default.fileExists(atPath: path))
        let naming = ["-static-func-full-module-prefix=false", "-disable-incremental-llvm-codegen"]
        for expected in naming + ["-enable-split-machine-functions"] {
            #expect(words.contains(expected), "scripts/release-flags lacks \(expected)")
        }

        let instrumented = try await run([Binaries.repository + "/scripts/release-flags", "--instrumented"])
        #expect(instrumented.status == 0, "\(instrumented.stderr)")
        let counting = instrumented.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        for expected in naming + ["-ir-profile-generate", "-u__llvm_profile_runtime"] {
            #expect(counting.contains(expected), "scripts/release-flags --instrumented lacks \(expected)")
        }
        #expect(!counting.contains { $0.hasPrefix(prefix) })
        let runtime = try #require(counting.first { $0.hasSuffix(".a") && $0.contains("libclang_rt.profile") })
        #expect(FileManager.default.fileExists(atPath: runtime))

        // bench/pgo-profile merges and reads the profile with the llvm-profdata that converted it.
        let tool = try await run([Binaries.repository + "/scripts/release-flags", "--llvm-profdata"])
        #expect(tool.status == 0, "\(tool.stderr)")
        let profdata = tool.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(profdata.hasSuffix("/bin/llvm-profdata") && FileManager.default.isExecutableFile(atPath: profdata))
    }

    /// Recorded in one directory (bench/pgo-profile's build), the profile
    /// applies in any other: no record is named by a directory, as a
    /// file-local function's record is unless its object's base name alone
    /// is used. And it counts the daemon's call path.
    @Test func theProfileNamesNoDirectory() throws {
        let lines = try Self.read("scripts/pgo-profile.proftext").split(separator: "\n", omittingEmptySubsequences: false)
        let names = lines.indices.dropLast().filter { lines[$0 + 1] == "# Func Hash:" }.map { lines[$0] }
        #expect(names.count > 1000, "scripts/pgo-profile.proftext has \(names.count) records")
        let placed = names.filter { $0.hasPrefix("/") }
        #expect(placed.isEmpty, "records named by a directory: \(placed.prefix(3))")
        #expect(names.contains { $0.contains("Dispatcher") && $0.contains("dispatchAtOnce") })
        #expect(names.contains { $0.contains("WireReader") && $0.contains("readHeader") })
    }
}
