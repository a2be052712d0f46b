import Desktop
import Foundation
import Testing
import TestSupport

/// Without inotify, edits to rule files are still noticed by polling.
@Suite(.timeLimit(.minutes(1)))
struct FilePollerTests {
    @Test func editsCreationsAndRemovalsAreNoticedOnce() async throws {
        let tree = try XDGTree()
        let directory = tree.root + "/config/openurld/rules.d"
        let (changes, changed) = AsyncStream<Void>.makeStream()
        let poller = FilePoller(directories: [directory, tree.root + "/etc-xdg/openurld/rules.d"], every: .milliseconds(20)) {
            changed.yield()
        }
        var events = changes.makeAsyncIterator()
        // Each change, made after the last was reported, is reported.
        try tree.write("config/openurld/rules.d/10-a.rules", "[Rule a]\nResult=handled\n")
        _ = await events.next()
        try "[Rule a]\nResult=discarded\n".write(toFile: directory + "/10-a.rules", atomically: false, encoding: .utf8)
        _ = await events.next()
        try FileManager.default.removeItem(atPath: directory + "/10-a.rules")
        _ = await events.next()
        withExtendedLifetime(poller) {}
    }
}
