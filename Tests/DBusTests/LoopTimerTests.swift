@testable import DBus
import Dispatch
import Glibc
import Synchronization
import Testing
import TestSupport

/// `Connection.run(at:_:)`: work on the loop at a moment, on the poll
/// thread's one deadline. Asked for while the poll thread handles a message,
/// it must cost no wake-up (that is its point: the daemon's log lines are
/// kept back this way after every reply); asked for from elsewhere, it must
/// wake the thread, or it would wait for the next message.
@Suite struct LoopTimerTests {
    @Test func timersRunOnTheLoopInTheOrderOfTheirMomentsAndNoSooner() async throws {
        try await withPrivateBus { bus in
            let connection = try await bus.connect()
            defer { connection.close() }
            let ran = Mutex<[(Int, Bool, Duration)]>([])
            let start = ContinuousClock.now
            let (done, finished) = AsyncStream<Void>.makeStream()
            for milliseconds in [60, 20, 40] {
                connection.run(at: .now() + .milliseconds(milliseconds)) {
                    let count = ran.withLock { ran in
                        ran.append((milliseconds, connection.loop.isOnQueue, ContinuousClock.now - start))
                        return ran.count
                    }
                    if count == 3 { finished.yield() }
                }
            }
            for await _ in done { break }
            let order = ran.withLock { $0 }
            #expect(order.map(\.0) == [20, 40, 60])
            #expect(order.allSatisfy { $0.1 }, "every timer ran on the loop's queue")
            for (milliseconds, _, after) in order {
                #expect(after >= .milliseconds(milliseconds), "the \(milliseconds) ms timer ran after \(after)")
            }
        }
    }

    @Test func aTimerOfAClosedConnectionNeverRuns() async throws {
        try await withPrivateBus { bus in
            let connection = try await bus.connect()
            let ran = Atomic(false)
            connection.run(at: .now() + .milliseconds(20)) { ran.store(true, ordering: .relaxed) }
            connection.close()
            try await Task.sleep(for: .milliseconds(100))
            let didRun = ran.load(ordering: .relaxed)
            #expect(!didRun)
        }
    }

    /// The poll thread's own deadline change wakes nothing; another
    /// thread's wakes it. Seen through the poll seam: a wake-up is the
    /// wake descriptor (the first in the set) found readable.
    @Test func aDeadlineSetOnThePollThreadWakesNothing() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let wakes = Mutex(0)
        let fired = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "test.poller")
        let poller = Mutex<WatchPoller?>(nil)
        let setOnPollThread = Mutex(false)
        let made = try WatchPoller(
            queue: SerialQueue(queue),
            poll: { fds, count, timeout in
                let ready = Glibc.poll(fds, count, timeout)
                if ready > 0, fds[0].revents != 0 { wakes.withLock { $0 += 1 } }
                return ready
            },
            handle: { entry, _ in
                var byte: UInt8 = 0
                _ = read(entry.fd, &byte, 1)
                // On the poll thread, as a message's handler runs.
                setOnPollThread.withLock { $0 = true }
                poller.withLock { $0 }?.setDeadline(.now() + .milliseconds(20))
            },
            onDeadline: { fired.signal() },
            fail: { _ in })
        poller.withLock { $0 = made }
        defer { made.stop() }
        let entry = WatchPoller.Entry(fd: ends[0], events: Int16(POLLIN))
        made.set(entry, enabled: true)
        // The new set wakes the poll thread once, whether it was waiting yet or not.
        let limit = ContinuousClock.now + .seconds(5)
        while wakes.withLock({ $0 }) == 0, ContinuousClock.now < limit { sched_yield() }
        let before = wakes.withLock { $0 }
        #expect(before == 1)
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(fired.wait(timeout: .now() + .seconds(5)) == .success, "the deadline set on the poll thread fired")
        #expect(setOnPollThread.withLock { $0 })
        #expect(wakes.withLock { $0 } == before, "a deadline set by the poll thread woke it")
        // From another thread: it must wake the thread, blocked with no deadline.
        made.setDeadline(.now() + .milliseconds(20))
        #expect(fired.wait(timeout: .now() + .seconds(5)) == .success, "the deadline set from another thread fired")
        #expect(wakes.withLock { $0 } == before + 1, "a deadline set by another thread did not wake the poll thread")
    }
}
