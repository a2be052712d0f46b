import Foundation
import Testing
import TestSupport
import XDG

@testable import Desktop

/// Resolution rules on real temporary trees, one rule per case.
@Suite struct ResolutionTests {
    static func resolve(_ tree: XDGTree, _ scheme: String = "https", desktop: String? = nil) -> String? {
        var environment = tree.environment
        environment["XDG_CURRENT_DESKTOP"] = desktop
        let catalog = try! DesktopDatabase(environment: environment).catalog()
        return catalog.defaultApplication(for: "x-scheme-handler/" + scheme, system: DesktopDatabase.system(path: environment["PATH"]))?.id
    }

    /// An alias is another name for the same type (shared-mime-info): a
    /// default, an added or removed association, or an application's
    /// `MimeType=` under the alias counts for the type, and the reverse
    /// (issue 25: `application/x-pdf=okular.desktop` was ignored, an
    /// application listing only `application/x-gzip` was not offered for gzip).
    @Test func aliasesNameTheSameType() throws {
        let tree = try XDGTree()
        try tree.write("usr/share/mime/aliases", "application/x-pdf application/pdf\napplication/x-gzip application/gzip\n")
        for (id, types) in [("evince.desktop", "application/pdf;"), ("okular.desktop", "application/pdf;"),
                            ("ark.desktop", "application/x-gzip;"), ("fileroller.desktop", "application/gzip;")] {
            try tree.write("usr/share/applications/" + id, "[Desktop Entry]\nType=Application\nName=\(id)\nExec=recorder \(id) %f\nMimeType=\(types)\n")
        }
        func catalog() throws -> ApplicationCatalog { try DesktopDatabase(environment: tree.environment).catalog() }
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        try tree.write("config/mimeapps.list", "[Default Applications]\napplication/x-pdf=okular.desktop\n")
        #expect(try catalog().defaultApplication(for: "application/pdf", system: system)?.id == "okular.desktop")
        #expect(try catalog().defaultApplication(for: "application/x-pdf", system: system)?.id == "okular.desktop")
        #expect(try catalog().associatedApplications(for: "application/gzip") == ["ark.desktop", "fileroller.desktop"])
        try tree.write("config/mimeapps.list", "[Removed Associations]\napplication/x-gzip=ark.desktop;\n[Added Associations]\napplication/x-pdf=okular.desktop;\n")
        #expect(try catalog().associatedApplications(for: "application/gzip") == ["fileroller.desktop"])
        #expect(try catalog().associatedApplications(for: "application/pdf").first == "okular.desktop")
    }

    @Test func theUsersDefaultWins() throws {
        let tree = try XDGTree()
        try tree.app("firefox.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.app("chromium.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.write("usr/share/applications/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=chromium.desktop\n")
        #expect(Self.resolve(tree) == "chromium.desktop")
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop;\n")
        #expect(Self.resolve(tree) == "firefox.desktop")
    }

    @Test func theDispatcherListedFirstFallsThroughToTheNextApp() throws {
        let tree = try XDGTree()
        try tree.app("org.openurld.Dispatcher1.desktop", schemes: ["https"], exec: "openurl %U", extra: "DBusActivatable=true")
        try tree.app("firefox.desktop", schemes: ["https"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;firefox.desktop;\n")
        #expect(Self.resolve(tree) == "firefox.desktop")
    }

    @Test func neverItselfUnderAnotherNameOrThroughASymlink() throws {
        let tree = try XDGTree()
        // A renamed copy of the dispatcher's desktop file, running openurl.
        try tree.write("bin/openurl", "#!/bin/sh\n", executable: true)
        try tree.app("renamed-copy.desktop", schemes: ["https"], exec: "openurl %u")
        try tree.app("browser.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=renamed-copy.desktop;browser.desktop;\n")
        #expect(Self.resolve(tree) == "browser.desktop")
        // A symlink whose real file is named openurld is the dispatcher too.
        let linked = try XDGTree()
        try linked.write("opt-bin/openurld", "#!/bin/sh\n", executable: true)
        try FileManager.default.createSymbolicLink(atPath: linked.root + "/bin/innocent-browser", withDestinationPath: linked.root + "/opt-bin/openurld")
        try linked.app("innocent.desktop", schemes: ["https"], exec: "innocent-browser %u")
        try linked.app("real.desktop", in: "usr/share/applications", schemes: ["https"])
        try linked.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=innocent.desktop;\n")
        #expect(Self.resolve(linked) == "real.desktop")
    }

    @Test func unusableEntriesAreSkipped() throws {
        let tree = try XDGTree()
        try tree.app("a-missing-program.desktop", schemes: ["https"], exec: "no-such-program %u")
        try tree.app("b-missing-tryexec.desktop", schemes: ["https"], extra: "TryExec=no-such-program")
        try tree.app("c-hidden.desktop", schemes: ["https"], extra: "Hidden=true")
        try tree.app("d-broken-exec.desktop", schemes: ["https"], exec: "recorder \"unclosed %u")
        try tree.app("e-nodisplay.desktop", schemes: ["https"], extra: "NoDisplay=true")
        #expect(Self.resolve(tree) == "e-nodisplay.desktop")
    }

    @Test func aHiddenUserCopyRemovesTheSystemEntry() throws {
        let tree = try XDGTree()
        try tree.app("firefox.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.app("other.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.write("data/applications/firefox.desktop", "[Desktop Entry]\nHidden=true\n")
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop;\n")
        #expect(Self.resolve(tree) == "other.desktop")
    }

    @Test func subdirectoriesGiveDashedIDs() throws {
        let tree = try XDGTree()
        try tree.app("kde/konqueror.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=kde-konqueror.desktop\n")
        #expect(Self.resolve(tree) == "kde-konqueror.desktop")
    }

    @Test func desktopSpecificListsComeFirstAndCannotEscape() throws {
        let tree = try XDGTree()
        try tree.app("a.desktop", schemes: ["https"])
        try tree.app("b.desktop", schemes: ["https"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=a.desktop\n")
        try tree.write("config/gnome-mimeapps.list", "[Default Applications]\nx-scheme-handler/https=b.desktop\n")
        try tree.write("x-mimeapps.list", "[Default Applications]\nx-scheme-handler/https=b.desktop\n")
        #expect(Self.resolve(tree, desktop: "GNOME") == "b.desktop")
        #expect(Self.resolve(tree, desktop: "KDE") == "a.desktop")
        #expect(Self.resolve(tree, desktop: "../x") == "a.desktop")
    }

    @Test func addedAndRemovedAssociations() throws {
        let tree = try XDGTree()
        try tree.app("declares.desktop", schemes: ["https"])
        try tree.app("added.desktop", schemes: [])
        try tree.write("config/mimeapps.list", "[Added Associations]\nx-scheme-handler/https=added.desktop;\n[Removed Associations]\nx-scheme-handler/https=declares.desktop;\n")
        #expect(Self.resolve(tree) == "added.desktop")
    }

    @Test func noApplicationAtAll() throws {
        let tree = try XDGTree()
        try tree.app("mail.desktop", schemes: ["mailto"])
        #expect(Self.resolve(tree, "gopher") == nil)
        #expect(Self.resolve(tree, "mailto") == "mail.desktop")
    }

    @Test func hugeAndMalformedMimeappsFilesAreSkipped() throws {
        let tree = try XDGTree()
        try tree.app("a-first.desktop", schemes: ["https"])
        try tree.app("b-chosen-in-huge-file.desktop", schemes: ["https"])
        try tree.app("c-chosen-in-bad-file.desktop", schemes: ["https"])
        // Over the 1 MiB limit: skipped whole, so its default does not count.
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=b-chosen-in-huge-file.desktop\n" + String(repeating: "# padding\n", count: 120_000))
        try tree.write("etc-xdg/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=c-chosen-in-bad-file.desktop\nthis line is not a keyfile line\n")
        #expect(Self.resolve(tree) == "a-first.desktop")
    }
}


/// The dispatcher named as the default at each level of the lookup order is
/// skipped there, and the next application in spec order is used.
@Suite struct NeverItselfAtEveryLevelTests {
    static let levels = [
        "config/gnome-mimeapps.list", "config/mimeapps.list", "etc-xdg/gnome-mimeapps.list", "etc-xdg/mimeapps.list",
        "data/applications/gnome-mimeapps.list", "data/applications/mimeapps.list",
        "usr/share/applications/gnome-mimeapps.list", "usr/share/applications/mimeapps.list",
    ]

    @Test(arguments: levels)
    func skipsTheDispatcher(at level: String) throws {
        let tree = try XDGTree()
        try tree.app("org.openurld.Dispatcher1.desktop", in: "usr/share/applications", schemes: ["https"],
                     exec: "openurl %U", extra: "DBusActivatable=true")
        try tree.write("bin/openurl", "#!/bin/sh\n", executable: true)
        try tree.app("alias.desktop", in: "usr/share/applications", schemes: ["https"], exec: "openurl %u")
        try tree.app("browser.desktop", in: "usr/share/applications", schemes: ["https"])
        try tree.write(level, "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;alias.desktop;browser.desktop;\n")
        #expect(ResolutionTests.resolve(tree, desktop: "GNOME") == "browser.desktop")
    }

    @Test func onlyTheDispatcherEverywhereMeansNoApplication() throws {
        let tree = try XDGTree()
        try tree.write("bin/openurl", "#!/bin/sh\n", executable: true)
        try tree.app("org.openurld.Dispatcher1.desktop", schemes: ["https"], exec: "openurl %U")
        for level in Self.levels {
            try tree.write(level, "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;\n")
        }
        #expect(ResolutionTests.resolve(tree, desktop: "GNOME") == nil)
    }
}

/// Symlink loops in applications directories, and what a lookup re-reads
/// (issue 15, item 8).
@Suite struct ScanTests {
    @Test func symlinkLoopsAreListedOnce() throws {
        let tree = try XDGTree()
        try tree.app("firefox.desktop", schemes: ["https"])
        for index in 1...4 {
            try FileManager.default.createSymbolicLink(atPath: tree.root + "/data/applications/loop-\(index)", withDestinationPath: ".")
        }
        let database = DesktopDatabase(environment: tree.environment)
        let (files, _) = try database.scan()
        // Without loop detection: 4 + 4² + … + 4⁸ directory listings, and the
        // file once per path that reaches it.
        #expect(files.map(\.id) == ["firefox.desktop"], "\(files.map(\.id).prefix(5))")
        #expect(ResolutionTests.resolve(tree) == "firefox.desktop")
    }

    @Test func anUnchangedTreeIsNotListedAgainButEditsAreSeen() throws {
        let tree = try XDGTree()
        try tree.app("firefox.desktop", schemes: ["https"])
        // Files are compared at most once per latency; zero compares them every time.
        let database = DesktopDatabase(environment: tree.environment, quirks: [], inPlaceEditLatency: .zero)
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        #expect(try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system)?.id == "firefox.desktop")
        // A file the listing would find, slipped in without touching the
        // directory's signature: only a new listing could see it.
        let directory = tree.root + "/data/applications"
        var before = stat()
        stat(directory, &before)
        try tree.app("aaa.desktop", schemes: ["https"])
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, directory, &times, 0)
        #expect(try database.catalog().entries["aaa.desktop"] == nil, "an unchanged directory was listed again")
        // An edit in place of a known file is seen without a listing.
        try "[Desktop Entry]\nType=Application\nName=firefox\nExec=recorder firefox %u\nMimeType=x-scheme-handler/mailto;\n"
            .write(toFile: directory + "/firefox.desktop", atomically: false, encoding: .utf8)
        utimensat(AT_FDCWD, directory, &times, 0)
        #expect(try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system) == nil)
        // And a change to the directory brings a new listing.
        try tree.app("bbb.desktop", schemes: ["https"])
        try FileManager.default.removeItem(atPath: directory + "/aaa.desktop")
        #expect(try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system)?.id == "bbb.desktop")
    }

    /// Within the latency, an edit in place goes unseen (the price of not
    /// checking every installed file for every URL); a change to the
    /// directory or to a mimeapps.list never does.
    @Test func editsInPlaceWaitForTheLatencyOtherChangesDoNot() throws {
        let tree = try XDGTree()
        try tree.app("firefox.desktop", schemes: ["https"])
        let database = DesktopDatabase(environment: tree.environment, quirks: [], inPlaceEditLatency: .seconds(3600))
        let system = DesktopDatabase.system(path: tree.environment["PATH"])
        #expect(try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system)?.id == "firefox.desktop")
        let directory = tree.root + "/data/applications"
        var before = stat()
        stat(directory, &before)
        try "[Desktop Entry]\nType=Application\nName=firefox\nExec=recorder firefox %u\nMimeType=x-scheme-handler/mailto;\n"
            .write(toFile: directory + "/firefox.desktop", atomically: false, encoding: .utf8)
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, directory, &times, 0)
        #expect(try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system)?.id == "firefox.desktop")
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=other.desktop;\n")
        try tree.app("other.desktop", schemes: ["https"])
        #expect(try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system)?.id == "other.desktop")
    }
}
