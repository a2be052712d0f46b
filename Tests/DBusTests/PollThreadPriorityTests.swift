@testable import DBus
import Dispatch
import Glibc
import Posix
import Synchronization
import Testing
import TestSupport

/// A connection is served at the process's priority, whichever thread
/// opened it. Its poll thread would otherwise start with its creator's: a
/// libdispatch worker's, which libdispatch lowers for `userInitiated` work
/// where the process may (as root), so that a daemon run as root (the
/// tests, the benchmarks) ran at nice -2 where a user's runs at 0.
///
/// Lowering a thread's nice value needs privilege (`CAP_SYS_NICE`, or an
/// `RLIMIT_NICE` that allows it); without it the situation cannot arise,
/// and these tests do not run.
@Suite(.enabled(if: mayLowerPriority(), "the process may lower a thread's priority, as libdispatch does for userInitiated work"))
struct PollThreadPriorityTests {
    @Test func thePollThreadTakesTheProcesssPriorityNotItsCreators() throws {
        let process = ThreadPriority.process
        let seen = Mutex<(creator: Int32, poll: Int32)?>(nil)
        let queue = DispatchQueue(label: "test.priority")
        let fired = DispatchSemaphore(value: 0)
        let made = Mutex<WatchPoller?>(nil)
        let creator = Thread {
            try? ThreadPriority.setCurrent(process - 2)
            let creatorPriority = ThreadPriority.current
            made.withLock {
                $0 = try? WatchPoller(
                    queue: SerialQueue(queue), handle: { _, _ in },
                    // On the poll thread: `SerialQueue.sync` runs it there.
                    onDeadline: {
                        seen.withLock { $0 = (creatorPriority, ThreadPriority.current) }
                        fired.signal()
                    },
                    fail: { _ in })
            }
        }
        creator.join()
        let poller = try #require(made.withLock { $0 })
        defer { poller.stop() }
        poller.setDeadline(.now())
        #expect(fired.wait(timeout: .now() + .seconds(5)) == .success)
        let (creatorPriority, pollPriority) = try #require(seen.withLock { $0 })
        #expect(creatorPriority == process - 2, "the creating thread was not lowered: the test shows nothing")
        #expect(pollPriority == process)
    }

    /// The daemon's way: a connection opened in a `userInitiated` task,
    /// whose methods are answered on its poll thread.
    @Test func aConnectionOpenedFromAUserInitiatedTaskServesAtTheProcesssPriority() async throws {
        try await withPrivateBus { bus in
            let (server, openerPriority) = try await Task.detached(priority: .userInitiated) {
                (try await bus.connect(), ThreadPriority.current)
            }.value
            defer { server.close() }
            let method = ExportedMethod("Priority", results: [Argument("nice", .int32)]) { _ in [.int32(ThreadPriority.current)] }
            server.export([ExportedInterface("org.example.Priority", methods: [method])], at: "/org/example/Priority")
            let client = try await bus.connect()
            defer { client.close() }
            let reply = try await client.call(server.uniqueName, "/org/example/Priority", "org.example.Priority", "Priority")
            #expect(openerPriority < ThreadPriority.process, "libdispatch did not lower the task's thread: the test shows nothing")
            #expect(try reply.decode(Int32.self) == ThreadPriority.process)
        }
    }
}

/// Whether a thread of this process may take a nice value below the process's.
private func mayLowerPriority() -> Bool {
    let lowered = Mutex(false)
    let thread = Thread {
        lowered.withLock { $0 = (try? ThreadPriority.setCurrent(ThreadPriority.process - 2)) != nil }
    }
    thread.join()
    return lowered.withLock { $0 }
}
