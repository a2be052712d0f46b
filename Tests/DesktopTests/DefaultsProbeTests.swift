import Foundation
import Testing
import TestSupport

@testable import Desktop

/// A lookup looks at the `mimeapps.list` and `aliases` files that exist and
/// at the directories of those that do not (`DefaultsProbe`): every way a
/// default can change must still be seen at the next lookup, and a change
/// that touches no such file must not read the catalog again. Each test
/// runs with what was looked at watched (`PathWatch`: a lookup reads the
/// watch, not the files) and without (every lookup looks).
@Suite struct DefaultsProbeTests {
    static func database(_ tree: XDGTree, watching: Bool) -> DesktopDatabase {
        DesktopDatabase(environment: tree.environment, quirks: [], inPlaceEditLatency: .seconds(3600), watching: watching)
    }

    static func https(_ database: DesktopDatabase, _ tree: XDGTree) throws -> String? {
        try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: DesktopDatabase.system(path: tree.environment["PATH"]))?.id
    }

    /// Writes `text` over `path` in place, then gives its directory back the
    /// times it had: only the file itself shows the edit.
    static func editInPlace(_ path: String, _ text: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var before = stat()
        stat(directory, &before)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, directory, &times, 0)
    }

    /// A list made where there was none, then edited in place: in a
    /// directory the probe watches for it (`etc-xdg`), and in an
    /// applications directory, which the catalog lists again and the probe
    /// must then look at again, or an edit of the new list would go unseen.
    @Test(arguments: ["etc-xdg", "data/applications"], [true, false])
    func aNewListIsSeenAndSoAreItsEdits(in directory: String, watching: Bool) throws {
        let tree = try XDGTree()
        try tree.app("a.desktop", schemes: ["https"])
        try tree.app("b.desktop", schemes: ["https"])
        let database = Self.database(tree, watching: watching)
        #expect(try Self.https(database, tree) == "a.desktop")
        try tree.write(directory + "/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=b.desktop\n")
        #expect(try Self.https(database, tree) == "b.desktop")
        try Self.editInPlace(tree.root + "/" + directory + "/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=a.desktop;\n")
        #expect(try Self.https(database, tree) == "a.desktop")
    }

    @Test(arguments: [true, false]) func aliasesInADirectoryThatDidNotExistAreSeen(watching: Bool) throws {
        let tree = try XDGTree()
        try tree.write("data/applications/pdf.desktop", "[Desktop Entry]\nType=Application\nName=pdf\nExec=recorder pdf %u\nMimeType=application/pdf;\n")
        let database = Self.database(tree, watching: watching)
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        #expect(try database.catalog().defaultApplication(for: "application/x-pdf", system: system) == nil)
        try tree.write("usr/share/mime/aliases", "application/x-pdf application/pdf\n")
        #expect(try database.catalog().defaultApplication(for: "application/x-pdf", system: system)?.id == "pdf.desktop")
    }

    /// Another file coming and going where a list could be is not a change
    /// of defaults: the catalog is not read again.
    @Test(arguments: [true, false]) func otherFilesBesideTheListsDoNotReadTheCatalogAgain(watching: Bool) throws {
        let tree = try XDGTree()
        try tree.app("a.desktop", schemes: ["https"])
        let database = Self.database(tree, watching: watching)
        let first = try database.generationalCatalog().generation
        try tree.write("etc-xdg/other.conf", "x")
        try tree.write("config/other.conf", "x")
        #expect(try database.generationalCatalog().generation == first)
        try FileManager.default.removeItem(atPath: tree.root + "/config/other.conf")
        #expect(try database.generationalCatalog().generation == first)
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=a.desktop\n")
        #expect(try database.generationalCatalog().generation == first + 1)
    }
}
