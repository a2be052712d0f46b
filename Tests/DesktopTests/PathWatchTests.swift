import FileAccess
import Foundation
import Testing
import TestSupport

@testable import Desktop

/// `PathWatch` replaces a `stat` of each directory and list for every URL
/// with one `read`: whatever would change what those `stat`s return must
/// show in it, and what would not must not (or the catalog's lookups would
/// look for nothing).
@Suite final class PathWatchTests {
    let root: String
    init() throws { root = try makeTemporaryDirectory(prefix: "openurld-watch") }
    deinit { try? FileManager.default.removeItem(atPath: root) }

    func write(_ relative: String, _ text: String = "x") throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func watch(_ relative: [String]) throws -> PathWatch {
        try #require(PathWatch(paths: relative.map { root + "/" + $0 }))
    }

    @Test func nothingHappenedReadsAsNothing() throws {
        try write("config/mimeapps.list")
        let watch = try watch(["config/mimeapps.list", "data/applications"])
        #expect(!watch.sawChanges())
        #expect(!watch.sawChanges())
    }

    @Test func anEditInPlaceIsSeenAndStaysSeen() throws {
        try write("config/mimeapps.list")
        let watch = try watch(["config/mimeapps.list"])
        let handle = try #require(FileHandle(forWritingAtPath: root + "/config/mimeapps.list"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("y".utf8))
        try handle.close()
        #expect(watch.sawChanges())
        #expect(watch.sawChanges(), "a watch that saw a change forgot it")
    }

    @Test func aFileRenamedOverTheListIsSeen() throws {
        try write("config/mimeapps.list")
        try write("config/new")
        let watch = try watch(["config/mimeapps.list"])
        #expect(rename(root + "/config/new", root + "/config/mimeapps.list") == 0)
        #expect(watch.sawChanges())
    }

    @Test func aRemovedListIsSeen() throws {
        try write("config/mimeapps.list")
        let watch = try watch(["config/mimeapps.list"])
        try FileManager.default.removeItem(atPath: root + "/config/mimeapps.list")
        #expect(watch.sawChanges())
    }

    /// A path under directories that do not exist yet: making the first of
    /// them is already a change (the stat of the path is not, but the watch
    /// must move down to see the rest).
    @Test func makingADirectoryOnTheWayIsSeen() throws {
        let watch = try watch(["share/mime/aliases"])
        try FileManager.default.createDirectory(atPath: root + "/share", withIntermediateDirectories: false)
        #expect(watch.sawChanges())
    }

    @Test func otherNamesBesideAWatchedPathDoNotCount() throws {
        try write("config/mimeapps.list")
        try write("data/applications/a.desktop")
        let watch = try watch(["config/mimeapps.list", "data/applications", "etc-xdg/mimeapps.list"])
        try write("config/settings.ini")
        try write("data/other/file")
        try write("elsewhere")
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: false)
        #expect(!watch.sawChanges(), "a file beside the watched ones counted")
        try write("etc-xdg/unrelated")
        #expect(watch.sawChanges(), "the directory on the way to a missing list was made")
    }

    @Test func aNewDesktopFileOrAnEditToOneIsSeen() throws {
        try write("data/applications/a.desktop")
        let first = try watch(["data/applications"])
        try write("data/applications/sub/b.desktop")
        #expect(first.sawChanges())
        let second = try watch(["data/applications", "data/applications/sub"])
        try write("data/applications/sub/b.desktop", "edited")
        #expect(second.sawChanges())
    }

    /// The list a symlink points to, edited where it is (a dotfiles
    /// repository): `stat` follows the link, and so must the watch.
    @Test func anEditToWhereASymlinkPointsIsSeen() throws {
        try write("dotfiles/mimeapps.list")
        try FileManager.default.createDirectory(atPath: root + "/config", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: root + "/config/mimeapps.list", withDestinationPath: root + "/dotfiles/mimeapps.list")
        let edited = try watch(["config/mimeapps.list"])
        try write("dotfiles/mimeapps.list", "edited")
        #expect(edited.sawChanges())
        try write("dotfiles/other.list")
        let pointed = try watch(["config/mimeapps.list"])
        try FileManager.default.removeItem(atPath: root + "/config/mimeapps.list")
        try FileManager.default.createSymbolicLink(atPath: root + "/config/mimeapps.list", withDestinationPath: root + "/dotfiles/other.list")
        #expect(pointed.sawChanges())
    }

    /// More events than the kernel queues (16 384 by default): some are lost,
    /// so the watch cannot tell and must say it saw a change.
    @Test func eventsLostCountAsAChange() throws {
        try write("config/mimeapps.list")
        let watch = try watch(["config/mimeapps.list"])
        let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16384
        try #require(limit <= 100_000, "the queue is too long to fill here: \(limit)")
        // Noise the watch does not count, until the queue overflows: files
        // of other names (the same event twice in a row is queued once), each
        // made and closed, two events.
        for index in 0...(limit / 2) {
            let fd = open(root + "/config/noise\(index)", O_WRONLY | O_CREAT, 0o644)
            try #require(fd >= 0)
            close(fd)
        }
        #expect(watch.sawChanges())
    }

    @Test func aRelativePathCannotBeWatched() {
        #expect(PathWatch(paths: ["config/mimeapps.list"]) == nil)
    }
}

/// A watch is made after the look it watches for: a change in between must
/// show, or the watch would stay quiet about it for good.
@Suite struct WatchAfterTheLookTests {
    @Test func aChangeBetweenTheLookAndTheWatchMakesNoWatch() throws {
        let tree = try XDGTree()
        try tree.app("a.desktop", schemes: ["https"])
        let database = DesktopDatabase(environment: tree.environment, quirks: [], inPlaceEditLatency: .seconds(3600))
        _ = try database.catalog()
        #expect(database.watchAfterTheLastLook() != nil, "nothing changed since the look")
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=a.desktop\n")
        #expect(database.watchAfterTheLastLook() == nil, "a list made after the look, before the watch")
        _ = try database.catalog()
        try FileManager.default.createDirectory(atPath: tree.root + "/data/applications/sub", withIntermediateDirectories: false)
        #expect(database.watchAfterTheLastLook() == nil, "a directory made after the look, before the watch")
    }
}

/// The previous-defaults record is read through the catalog's watch too:
/// its file's signature is taken again only when the watch saw a change.
@Suite struct WatchedRecordTests {
    @Test func theRecordWrittenOrEditedByHandIsSeen() throws {
        let tree = try XDGTree()
        try tree.app("a.desktop", schemes: ["https"])
        let database = DesktopDatabase(environment: tree.environment, quirks: [], inPlaceEditLatency: .seconds(3600))
        _ = try database.catalog()
        _ = try database.catalog()  // the watch is made at the second lookup
        #expect(database.previousDefaults()["x-scheme-handler/https"] == nil)
        #expect(database.previousDefaults()["x-scheme-handler/https"] == nil)
        try tree.write("state/openurld/previous-defaults.list", "[Previous Defaults]\nx-scheme-handler/https=a.desktop\n")
        #expect(database.previousDefaults()["x-scheme-handler/https"] == "a.desktop")
        _ = try database.catalog()  // a new watch, the record's file in it
        #expect(database.previousDefaults()["x-scheme-handler/https"] == "a.desktop")
        try tree.append("state/openurld/previous-defaults.list", "x-scheme-handler/mailto=a.desktop\n")
        #expect(database.previousDefaults()["x-scheme-handler/mailto"] == "a.desktop")
    }
}

/// The catalog read through a watch answers as one read afresh, whatever
/// happens to the lists, their directories and the applications
/// directories between lookups (edits in place of desktop files aside: those
/// wait for `inPlaceEditLatency`, watched or not).
@Suite struct WatchedCatalogTests {
    static let places = ["config", "etc-xdg", "data/applications", "usr/share/applications", "share1/applications", "config/sub"]

    @Test func aWatchedCatalogAnswersAsAFreshOne() throws {
        let tree = try XDGTree()
        var environment = tree.environment
        environment["XDG_DATA_DIRS"] = (environment["XDG_DATA_DIRS"] ?? "") + ":" + tree.root + "/share1"
        for name in ["a", "b", "c"] { try tree.app("\(name).desktop", schemes: ["https"]) }
        let watched = DesktopDatabase(environment: environment, quirks: [], inPlaceEditLatency: .seconds(3600))
        let system = DesktopDatabase.system(path: environment["PATH"])
        func answer(_ database: DesktopDatabase) throws -> String? {
            try database.catalog().defaultApplication(for: "x-scheme-handler/https", system: system)?.id
        }
        var generator = SplitMix(seed: 29)
        var steps: [String] = []
        for _ in 0..<150 {
            let place = Self.places.randomElement(using: &generator)!
            let directory = tree.root + "/" + place
            let list = directory + "/mimeapps.list"
            let app = ["a", "b", "c", "missing"].randomElement(using: &generator)!
            let text = "[Default Applications]\nx-scheme-handler/https=\(app).desktop\n"
            switch Int.random(in: 0..<6, using: &generator) {
            case 0:
                steps.append("write \(place)/mimeapps.list → \(app)")
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try text.write(toFile: list, atomically: false, encoding: .utf8)
            case 1:
                steps.append("replace \(place)/mimeapps.list → \(app)")
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try text.write(toFile: list, atomically: true, encoding: .utf8)
            case 2:
                steps.append("remove \(place)/mimeapps.list")
                try? FileManager.default.removeItem(atPath: list)
            case 3:
                steps.append("remove \(place)")
                try? FileManager.default.removeItem(atPath: directory)
            case 4:
                steps.append("new app \(place)/\(app).desktop")
                guard place.hasSuffix("applications") else { continue }
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try "[Desktop Entry]\nType=Application\nName=\(app)\nExec=recorder \(app) %u\nMimeType=x-scheme-handler/https;\n"
                    .write(toFile: directory + "/\(app).desktop", atomically: true, encoding: .utf8)
            default:
                steps.append("something else in \(place)")
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try "x".write(toFile: directory + "/other.conf", atomically: true, encoding: .utf8)
            }
            let fresh = DesktopDatabase(environment: environment, quirks: [], inPlaceEditLatency: .seconds(3600), watching: false)
            let expected = try answer(fresh)
            let got = try answer(watched)
            #expect(got == expected, "after: \(steps.suffix(4).joined(separator: "; "))")
            if got != expected { break }
        }
    }
}
