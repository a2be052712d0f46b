@testable import DBus
import Dispatch
import Testing

/// `EventLoop.isOnQueue` decides whether `sync` runs a block inline or waits
/// for the queue: wrong one way deadlocks, wrong the other lets two threads
/// into libdbus. It must be true exactly on the loop's own queue.
@Suite struct EventLoopTests {
    @Test func aLoopKnowsItsOwnQueueAndNoOther() {
        let loop = EventLoop(label: "test.a")
        let other = EventLoop(label: "test.b")
        let plain = DispatchQueue(label: "test.plain")
        #expect(!loop.isOnQueue)
        #expect(loop.queue.sync { loop.isOnQueue })
        #expect(!loop.queue.sync { other.isOnQueue })
        #expect(!other.queue.sync { loop.isOnQueue })
        #expect(!plain.sync { loop.isOnQueue })
        // A block that hops from one loop to another is on the second only, as
        // libdispatch's queue-specific values say.
        #expect(loop.queue.sync { other.queue.sync { (loop.isOnQueue, other.isOnQueue) } } == (false, true))
        // sync runs inline on the queue (it would deadlock otherwise) and waits from elsewhere.
        #expect(loop.queue.sync { loop.sync { loop.isOnQueue } })
        #expect(loop.sync { loop.isOnQueue })
        // Asynchronously too.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var seen = false
        loop.queue.async {
            seen = loop.isOnQueue
            done.signal()
        }
        done.wait()
        #expect(seen)
    }
}
