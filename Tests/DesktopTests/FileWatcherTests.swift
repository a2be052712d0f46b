@testable import Desktop
import Foundation
import Testing
import TestSupport

/// inotify's watcher of the rule and defaults directories.
@Suite(.timeLimit(.minutes(1)))
struct FileWatcherTests {
    /// A file written in a parent of a watched directory (the home
    /// directory, above `~/.config`) is never even read as an event; one
    /// written in the directory is, and is reported.
    @Test func filesWrittenInAParentWakeNothing() async throws {
        let tree = try XDGTree()
        let parent = tree.root + "/config/openurld"
        let directory = parent + "/rules.d"
        // Both files exist before the watch: what follows is only writes.
        try tree.write("config/openurld/history", "one\n")
        try tree.write("config/openurld/rules.d/10-a.rules", "[Rule a]\nResult=handled\n")
        let (changes, changed) = AsyncStream<Void>.makeStream()
        let watcher = try await watching { FileWatcher(directories: [directory], settle: .milliseconds(1)) { changed.yield() } }
        var reported = changes.makeAsyncIterator()
        try tree.append("config/openurld/history", "two\n")
        try tree.append("config/openurld/rules.d/10-a.rules", "# a comment\n")
        _ = await reported.next()
        // inotify queues events in order: the parent's, had it been
        // queued, was read before the rule file's.
        #expect(watcher.eventsRead == 1)
    }

    /// A directory watched itself and as the parent of another keeps its
    /// own events, whichever it is watched as last.
    @Test func aWatchedDirectoryThatIsAlsoAParentKeepsItsFileEvents() async throws {
        let tree = try XDGTree()
        let outer = tree.root + "/config/openurld/rules.d"
        try tree.write("config/openurld/rules.d/10-a.rules", "[Rule a]\nResult=handled\n")
        try FileManager.default.createDirectory(atPath: outer + "/inner", withIntermediateDirectories: true)
        let (changes, changed) = AsyncStream<Void>.makeStream()
        let watcher = try await watching { FileWatcher(directories: [outer, outer + "/inner"], settle: .milliseconds(1)) { changed.yield() } }
        var reported = changes.makeAsyncIterator()
        try tree.append("config/openurld/rules.d/10-a.rules", "# a comment\n")
        _ = await reported.next()
        withExtendedLifetime(watcher) {}
    }

    /// Creating the watched directory, seen only from its parent, is reported.
    @Test func aWatchedDirectoryCreatedLaterIsNoticed() async throws {
        let tree = try XDGTree()
        let directory = tree.root + "/config/openurld/rules.d"
        let (changes, changed) = AsyncStream<Void>.makeStream()
        let watcher = try await watching { FileWatcher(directories: [directory], settle: .milliseconds(1)) { changed.yield() } }
        var reported = changes.makeAsyncIterator()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = await reported.next()
        withExtendedLifetime(watcher) {}
    }

    /// The watcher `make` makes, once an inotify instance is free: the
    /// limit is per user, and the other tests of a parallel run hold many.
    private func watching(_ make: () -> FileWatcher?) async throws -> FileWatcher {
        try #require(try await eventuallyMade(within: .seconds(30), make), "no inotify instance came free within 30 s")
    }
}
