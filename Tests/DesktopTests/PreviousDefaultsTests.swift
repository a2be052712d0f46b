import Foundation
import Testing
import TestSupport
import XDG

@testable import Desktop

/// openurld's record of the application behind it: what is recorded, what
/// is never taken from it, and that reading the defaults again writes nothing.
@Suite struct PreviousDefaultsTests {
    func desk() throws -> XDGTree {
        let tree = try XDGTree()
        try tree.app("org.openurld.Dispatcher1.desktop", schemes: ["http", "https"], exec: "openurl %U", extra: "DBusActivatable=true")
        try tree.app("aaa-browser.desktop", schemes: ["http", "https"], extra: "Categories=WebBrowser;")
        try tree.app("firefox.desktop", schemes: ["http", "https"], extra: "Categories=WebBrowser;")
        return tree
    }

    static let system = DesktopDatabase.system(path: nil)

    func fallback(_ tree: XDGTree, _ scheme: String = "https") throws -> (String, ApplicationCatalog.FallbackReason)? {
        var environment = tree.environment
        environment["PATH"] = tree.environment["PATH"]
        return try DesktopDatabase(environment: environment)
            .fallbackApplication(forScheme: scheme, system: DesktopDatabase.system(path: tree.environment["PATH"]))
            .map { ($0.entry.id, $0.reason) }
    }

    @Test func theDefaultIsRecordedOnlyWhenItIsNotTheDispatcher() throws {
        let tree = try desk()
        let database = DesktopDatabase(environment: tree.environment)
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop\ntext/plain=firefox.desktop\n")
        #expect(try database.recordPreviousDefaults(system: system) == ["x-scheme-handler/https"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop\n")
        #expect(try database.recordPreviousDefaults(system: system) == [])
        let record = PreviousDefaultsFile(base: database.base).read()
        #expect(record.applications == ["x-scheme-handler/https": "firefox.desktop"], "text/plain is not a type the dispatcher takes")
        #expect(try fallback(tree)! == ("firefox.desktop", .previousDefault))
        // http stands in for https and the other way round, as KIO sends http to the https default.
        #expect(try fallback(tree, "http")! == ("firefox.desktop", .previousDefault))
    }

    @Test func recordingIsIdempotent() throws {
        let tree = try desk()
        let database = DesktopDatabase(environment: tree.environment)
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop\n")
        #expect(try database.recordPreviousDefaults(system: system).count == 1)
        let path = PreviousDefaultsFile(base: database.base).path
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        for _ in 0..<100 {
            #expect(try database.recordPreviousDefaults(system: system).isEmpty)
        }
        // Not rewritten: a rewrite replaces the file, and with it the inode.
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == before)
    }

    @Test func aPersonsEditsToTheRecordSurvive() throws {
        let tree = try desk()
        let database = DesktopDatabase(environment: tree.environment)
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        let original = "# mine\n[Previous Defaults]\nx-scheme-handler/mailto=thunderbird.desktop\n\n[Other]\nkey=value\n"
        try tree.write("state/openurld/previous-defaults.list", original)
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop\n")
        try database.recordPreviousDefaults(system: system)
        let text = try String(contentsOfFile: tree.root + "/state/openurld/previous-defaults.list", encoding: .utf8)
        #expect(text == "# mine\n[Previous Defaults]\nx-scheme-handler/mailto=thunderbird.desktop\nx-scheme-handler/https=firefox.desktop\n\n[Other]\nkey=value\n")
    }

    /// A record is read like a default: an ID that is the dispatcher, is not
    /// installed, is hidden, cannot run, or is a path is skipped.
    @Test(arguments: [
        "org.openurld.Dispatcher1.desktop", "nowhere.desktop", "hidden.desktop", "broken.desktop",
        "/tmp/evil.desktop", "../evil.desktop", "firefox", "",
    ])
    func hostileRecordsAreSkipped(id: String) throws {
        let tree = try desk()
        try tree.app("hidden.desktop", schemes: ["https"], extra: "Hidden=true")
        try tree.write("data/applications/broken.desktop", "[Desktop Entry]\nType=Application\nName=Broken\nExec=/nonexistent/program %u\n")
        try tree.write("data/applications/evil.desktop", "[Desktop Entry]\nType=Application\nName=Evil\nExec=recorder evil %u\n")
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop\n")
        try tree.write("state/openurld/previous-defaults.list", "[Previous Defaults]\nx-scheme-handler/https=\(id)\n")
        let chosen = try #require(try fallback(tree))
        #expect(chosen.0 == "aaa-browser.desktop" && chosen.1 == .webBrowser, "\(chosen)")
    }

    @Test func theRecordParsesLenientlyAndWritesSorted() {
        let record = PreviousDefaults(parsing: "garbage\n[Previous Defaults]\nx-scheme-handler/https=firefox.desktop\nnot/recorded=a.desktop\nx-scheme-handler/bad scheme=a.desktop\n")
        #expect(record.applications == ["x-scheme-handler/https": "firefox.desktop"])
        var more = record
        more["text/html"] = "chromium.desktop"
        more["x-scheme-handler/http"] = "a/b.desktop"
        #expect(more.text.hasSuffix("[Previous Defaults]\ntext/html=chromium.desktop\nx-scheme-handler/https=firefox.desktop\n"))
    }
}
