import DBus
import Dispatch
import Glibc
@testable import OpenURLDaemon
import Synchronization
import Testing
import TestSupport

/// `LineBatch`: the line of each URL (logged `batched`) kept back until the
/// loop is idle. Nothing kept may be lost or reordered: every other line
/// comes at once after the lines before it, a full batch and the end of
/// batching write at once, and the bus loop's timer writes what is kept.
@Suite final class LineBatchTests {
    /// A pipe the batch writes to, read without waiting.
    let ends: (read: Int32, write: Int32)

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "no pipe")
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        ends = (fds[0], fds[1])
        // A pipe holds 64 KiB: a full batch and more, unread.
    }

    deinit {
        close(ends.read)
        close(ends.write)
    }

    /// What has been written so far.
    func written() -> String {
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(ends.read, &buffer, buffer.count)
            guard count > 0 else { break }
            text += buffer[..<count]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The writes a batch asked its timer for, run by the test.
    final class Asked: Sendable {
        let works = Mutex<[@Sendable () -> Void]>([])
        var count: Int { works.withLock { $0.count } }
        /// Runs the first write asked for; one that was never asked for is
        /// the test's failure, not a crash that would leave its bus running.
        func runFirst() {
            guard let work = works.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                Issue.record("no write was asked for")
                return
            }
            work()
        }
    }

    /// `text` logged as the daemon logs each URL's line: its UTF-8, batched.
    func logBatched(_ logger: Logger, _ level: Logger.Level, _ text: String) {
        Array(text.utf8).withUnsafeBufferPointer { logger.log(level, utf8: $0, batched: true) }
    }

    /// A batch kept by a timer the test runs by hand.
    func keptBatch() -> (Logger, LineBatch, Asked) {
        let batch = LineBatch(descriptor: ends.write)
        let asked = Asked()
        batch.keepLines(timer: { _, work in asked.works.withLock { $0.append(work) } })
        return (Logger.standardError(threshold: .debug, batch: batch), batch, asked)
    }

    @Test func linesAreKeptUntilTheTimerAndWrittenInOrder() {
        let (logger, _, asked) = keptBatch()
        logBatched(logger, .info, "one")
        logBatched(logger, .debug, "two")
        logBatched(logger, .info, "three")
        #expect(written() == "", "nothing written before the timer")
        #expect(asked.count == 1, "one write asked for, for the whole batch")
        asked.runFirst()
        #expect(written() == "<6>one\n<7>two\n<6>three\n")
        // The next line asks for a write of its own.
        logBatched(logger, .info, "four")
        #expect(asked.count == 1)
    }

    @Test func everyOtherLineIsWrittenAtOnceAfterTheLinesBeforeIt() {
        let (logger, _, _) = keptBatch()
        logBatched(logger, .info, "kept")
        logger.info("serving")
        #expect(written() == "<6>kept\n<6>serving\n")
        logBatched(logger, .info, "kept")
        logger.warning("warned")
        logger.error("failed")
        // A line that needs escaping goes the string's way, at once.
        logBatched(logger, .info, "bell\u{7}")
        #expect(written() == "<6>kept\n<4>warned\n<3>failed\n<6>bell\\u{7}\n")
    }

    @Test func aFullBatchIsWrittenAtOnce() {
        let (logger, _, _) = keptBatch()
        let line = String(repeating: "x", count: 900)
        var expected = ""
        while expected.utf8.count + 904 <= LineBatch.capacity {
            logBatched(logger, .info, line)
            expected += "<6>\(line)\n"
        }
        #expect(written() == "", "a batch below its capacity is kept")
        logBatched(logger, .info, line)
        #expect(written() == expected + "<6>\(line)\n")
    }

    @Test func stoppingWritesWhatIsKeptAndThenEveryLineAtOnce() {
        let (logger, batch, asked) = keptBatch()
        logBatched(logger, .info, "kept")
        batch.stopKeeping()
        #expect(written() == "<6>kept\n")
        logBatched(logger, .info, "at once")
        #expect(written() == "<6>at once\n")
        // The timer's write, run late, finds nothing to write.
        asked.runFirst()
        #expect(written() == "")
    }

    @Test func withoutATimerEveryLineIsWrittenAtOnce() {
        let batch = LineBatch(descriptor: ends.write)
        let logger = Logger.standardError(threshold: .info, batch: batch)
        logBatched(logger, .info, "at once")
        #expect(written() == "<6>at once\n")
    }

    /// The daemon logs the line of each URL `batched`: after the reply, the
    /// batch's timer is asked for, and the line comes when it runs.
    @Test func theDaemonKeepsTheLineOfEachURL() async throws {
        let (logger, _, asked) = keptBatch()
        try await DaemonHarness.with(logger: logger) { d in
            let client = try await d.bus.connect()
            #expect(try await d.open(client, "https://example.com/a"))
            // The line is logged after the reply is sent.
            try #require(try await eventually { asked.count == 1 }, "the line was not kept: no write asked for")
            #expect(!written().contains("open https://"), "the line was written at once")
            asked.runFirst()
            #expect(written().contains("<6>open https://example.com/… from \(client.uniqueName.rawValue): opened with recorder.desktop\n"))
        }
    }

    /// The first bytes written within five seconds.
    func firstWritten() async throws -> String {
        let limit = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < limit {
            let text = written()
            if !text.isEmpty { return text }
            try await Task.sleep(for: .milliseconds(1))
        }
        return ""
    }

    /// On a bus connection: the loop's timer writes the lines, and closing
    /// the connection writes those still kept.
    @Test func theLoopWritesKeptLinesAndClosingWritesTheRest() async throws {
        try await withPrivateBus { bus in
            let connection = try await bus.connect()
            let batch = LineBatch(descriptor: ends.write)
            batch.keepLines(on: connection)
            let logger = Logger.standardError(threshold: .info, batch: batch)
            logBatched(logger, .info, "by the timer")
            #expect(try await firstWritten() == "<6>by the timer\n")
            // Kept by a timer that never runs: only the close can write it.
            batch.keepLines(timer: { _, _ in })
            logBatched(logger, .info, "at the close")
            #expect(written() == "")
            connection.close()
            #expect(try await firstWritten() == "<6>at the close\n")
        }
    }

    /// The batch holds its connection strongly (a weak reference would slow
    /// every retain of it), so it must let go once the connection closes.
    @Test func aClosedConnectionIsNotKeptAliveByItsBatch() async throws {
        try await withPrivateBus { bus in
            let batch = LineBatch(descriptor: ends.write)
            weak var held: Connection?
            do {
                let connection = try await bus.connect()
                held = connection
                batch.keepLines(on: connection)
                connection.close()
            }
            #expect(try await eventually { held == nil })
        }
    }
}
