import Desktop
import FileAccess
import Foundation
import Router
import Routing
import Testing
import TestSupport
import XDG

/// Files openurld rewrites lose nothing (`FileSystem.edit`): the rules the
/// person wrote, bytes that are not UTF-8, symlinks, concurrent edits.
@Suite(.timeLimit(.minutes(1)))
struct FileEditingTests {
    static let latin1Comment: [UInt8] = Array("# caf".utf8) + [0xE9] + Array(" au lait, \u{FC} in UTF-8 too\n".utf8)

    func file(_ tree: XDGTree) -> RememberedChoiceFile {
        RememberedChoiceFile(base: BaseDirectories(environment: tree.environment))
    }

    static func choice(_ host: String) -> RememberedChoice {
        RememberedChoice(target: .application("firefox.desktop"), scheme: "https", host: host, includesSubdomains: false, priority: 0)
    }

    @Test func aRememberedHostIsExactAlways() throws {
        let scopes = RememberScopes(listPaths: [])
        #expect(scopes.targets(for: try ValidatedURL("https://*.bank.example/")) == nil)
        #expect(scopes.targets(for: try ValidatedURL("zoommtg://*/")) == nil)
        #expect(scopes.targets(for: try ValidatedURL("https://www.bank.example/"))?.host == "www.bank.example")
        // And whatever reaches the file is a rule the loader takes.
        let tree = try XDGTree()
        #expect(throws: EditError.self) { try file(tree).remember(Self.choice("*")) }
        #expect(!FileManager.default.fileExists(atPath: file(tree).path))
    }

    @Test func untouchedBytesSurviveRememberingAndForgetting() throws {
        let tree = try XDGTree()
        let path = file(tree).path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let mine = Self.latin1Comment + Array("[Rule mine]\nHosts=mine.example\nOpen=firefox.desktop\n".utf8)
        try Data(mine).write(to: URL(fileURLWithPath: path))
        try file(tree).remember(Self.choice("a.example"))
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.starts(with: mine), "the person's bytes come first, unchanged")
        #expect(try file(tree).forget("a.example") == ["remembered a.example"])
        let after = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(after.starts(with: mine))
        #expect(!String(decoding: after, as: UTF8.self).contains("a.example"))
    }

    @Test func aFileOverTheReadLimitIsNeverReplaced() throws {
        let tree = try XDGTree()
        let path = file(tree).path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let big = "# filler\n" + String(repeating: "#" + String(repeating: "x", count: 1022) + "\n", count: 1100)
        try big.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: EditError.self) { try file(tree).remember(Self.choice("a.example")) }
        #expect(error?.description.contains("over the 1 MiB (1048576 bytes) openurld reads; not changed") == true, "\(String(describing: error))")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == big)
    }

    @Test func aSymlinkIsWrittenThrough() throws {
        let tree = try XDGTree()
        let path = file(tree).path
        let dotfiles = tree.root + "/dotfiles"
        try FileManager.default.createDirectory(atPath: dotfiles, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "# kept in git\n".write(toFile: dotfiles + "/remembered.rules", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "../../../dotfiles/remembered.rules")
        try file(tree).remember(Self.choice("a.example"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == "../../../dotfiles/remembered.rules")
        let target = try String(contentsOfFile: dotfiles + "/remembered.rules", encoding: .utf8)
        #expect(target.hasPrefix("# kept in git\n") && target.contains("[Rule remembered a.example]"))
        // A target that cannot be written is refused with a clear message; nothing changes.
        chmod(dotfiles, 0o500)
        defer { chmod(dotfiles, 0o700) }
        guard getuid() != 0 else { return }  // root writes anywhere
        let error = #expect(throws: EditError.self) { try file(tree).remember(Self.choice("b.example")) }
        #expect(error?.description.contains("where \(path) links to") == true)
    }

    @Test func concurrentEditsAcrossProcessesLoseNoChange() async throws {
        let tree = try XDGTree()
        let hosts = (1...8).map { "host\($0).example" }
        for host in hosts { try file(tree).remember(Self.choice(host)) }
        try file(tree).remember(Self.choice("stays.example"))
        var session = tree.environment
        session["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"
        let environment = session
        let runs = hosts.map { host in Task { try await run([Binaries.openurl, "forget", host], environment: environment) } }
        for run in runs { #expect(try await run.value.status == 0) }
        let left = file(tree).rules().rules.map(\.name)
        #expect(left == ["remembered stays.example"], "\(left)")
    }
}
