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

    /// `isInTurn` decides whether a woken task's job waits for the current
    /// turn or gets a turn of its own: true where the turn will not run the
    /// job, and it never runs; false inside a turn, and it runs twice. It
    /// must be true only on the thread running a turn of this loop, and only
    /// while it runs, however other threads ask meanwhile.
    @Test func aTurnIsKnownOnlyToTheThreadRunningIt() {
        let loop = EventLoop(label: "test.turns")
        let other = EventLoop(label: "test.other")
        #expect(!loop.isInTurn)
        #expect(!loop.queue.sync { loop.isInTurn })
        let inside = loop.queue.sync {
            loop.turn { () -> [Bool] in
                // Asked from another thread while this one is in the turn.
                let asked = DispatchSemaphore(value: 0)
                nonisolated(unsafe) var elsewhere = true
                DispatchQueue.global().async {
                    elsewhere = loop.isInTurn
                    asked.signal()
                }
                asked.wait()
                let nested = loop.turn { loop.isInTurn }
                return [loop.isInTurn, loop.isOnQueue, !elsewhere, nested, loop.isInTurn, !other.isInTurn]
            }
        }
        #expect(inside == [true, true, true, true, true, true])
        // Over when the outermost turn ends, on its queue and off it.
        #expect(!loop.queue.sync { loop.isInTurn })
        #expect(!loop.isInTurn)
        // The same thread running another loop's turn is in that turn only.
        #expect(other.queue.sync { other.turn { (other.isInTurn, loop.isInTurn) } } == (true, false))
    }
}
