import Dispatch
import Glibc
import Posix
import Synchronization

/// Waits for the connection's socket, and the earliest of its deadlines,
/// on one dedicated thread with `poll()`, and handles each readiness, and
/// the deadline when its time comes, on the connection's loop queue: the poll
/// thread is the loop, its timeout the earliest deadline, one `eventfd` to
/// wake it when the watches or the deadline change.
///
/// Why not Dispatch read and write sources: libdispatch unregisters a
/// cancelled fd source asynchronously. A new connection can then be given
/// the same fd number while the stale registration is still pending, and its
/// own source never fires (seen: a `Hello` reply never read while tests
/// opened and closed many connections). Here a watch leaves the poll set
/// synchronously, before the socket is closed, and a readiness seen for a
/// watch that has since been removed is dropped on the queue, where removal happens.
final class WatchPoller: Sendable {
    /// One descriptor and the events waited for on it.
    final class Entry: Sendable {
        let fd: Int32
        /// `POLLIN`, `POLLOUT` or both.
        let events: Int16
        /// Whether the poller waits on it: set under the poller's lock by
        /// `set`, read by `isEnabled` for every ready watch without the lock
        /// or a lookup.
        fileprivate let isWatched = Atomic<Bool>(false)
        init(fd: Int32, events: Int16) {
            self.fd = fd
            self.events = events
        }
    }

    private struct State {
        var enabled: [ObjectIdentifier: Entry] = [:]
        /// Counts changes to `enabled`, so that the thread rebuilds its poll set only after one.
        var generation: UInt64 = 0
        var stopped = false
        /// The wake-up descriptor is closed: the thread has ended (stopped, or its poll failed).
        var closed = false
        /// When `onDeadline` is next due (`DispatchTime` nanoseconds), if ever.
        var deadline: UInt64?
    }

    private let state = Mutex(State())
    private let wake: EventCounter
    private let queue: SerialQueue
    private let handle: @Sendable (Entry, Int16) -> Void
    private let fail: @Sendable (Errno) -> Void
    private let onDeadline: @Sendable () -> Void
    private let poll: Poll

    /// `poll(2)`'s shape: a seam, so that tests can make it fail.
    typealias Poll = @Sendable (UnsafeMutablePointer<pollfd>, nfds_t, Int32) -> Int32

    /// - Parameters:
    ///   - handle: runs on `queue` for a ready watch, with `poll`'s `revents`;
    ///     it must check the entry is still registered (`isEnabled`) before
    ///     touching the socket.
    ///   - onDeadline: runs on `queue` when the deadline set by `setDeadline` comes.
    ///   - fail: runs once, on the poll thread, when `poll` fails with
    ///     anything but `EINTR`; the thread has stopped waiting (a failure
    ///     that would recur is reported, never spun on).
    /// - Throws: `NoMemory` naming the call when the wake-up descriptor or the
    ///   thread cannot be made (descriptors or threads exhausted).
    init(queue: SerialQueue, poll: @escaping Poll = { Glibc.poll($0, $1, $2) },
         handle: @escaping @Sendable (Entry, Int16) -> Void, onDeadline: @escaping @Sendable () -> Void,
         fail: @escaping @Sendable (Errno) -> Void) throws(DBusError) {
        do {
            wake = try EventCounter()
        } catch {
            throw DBusError(.noMemory, "cannot create the D-Bus poller's wake-up descriptor: \(error)")
        }
        self.queue = queue
        self.onDeadline = onDeadline
        self.poll = poll
        self.handle = handle
        self.fail = fail
        do {
            try startThread()
        } catch {
            wake.close()
            throw error
        }
    }

    /// Adds, updates or (with `enabled == false`) removes a watch. Synchronous:
    /// after it returns, the poll thread no longer waits on a removed watch.
    func set(_ entry: Entry, enabled: Bool) {
        state.withLock { state in
            if enabled { state.enabled[ObjectIdentifier(entry)] = entry } else { state.enabled[ObjectIdentifier(entry)] = nil }
            entry.isWatched.store(enabled, ordering: .releasing)
            state.generation &+= 1
        }
        wakeUp()
    }

    /// Asks for `onDeadline` at `deadline`, unless one is already due no later.
    /// Asked for on the poll thread (in a `handle` or `onDeadline` it runs),
    /// nothing is woken: the thread reads the deadline before it next waits.
    func setDeadline(_ deadline: DispatchTime) {
        let changed = state.withLock { state in
            if let set = state.deadline, set <= deadline.uptimeNanoseconds { return false }
            state.deadline = deadline.uptimeNanoseconds
            return true
        }
        if changed, pollThread.load(ordering: .relaxed) != UInt(pthread_self()) { wakeUp() }
    }

    /// The poll thread, once it runs: set by it, so that it alone can equal it.
    private let pollThread = Atomic<UInt>(0)

    /// Whether `entry` is still waited on (`set` has not removed it). An
    /// entry belongs to the poller its loop made it for, and the loop
    /// removes its entries before it stops that poller.
    func isEnabled(_ entry: Entry) -> Bool { entry.isWatched.load(ordering: .acquiring) }

    /// Ends the thread; the descriptor is closed by the thread on its way out.
    func stop() {
        state.withLock { $0.stopped = true }
        wakeUp()
    }

    /// Under the lock that closing takes too: a wake-up never writes to a
    /// descriptor number the thread has closed (and the process reused).
    private func wakeUp() {
        state.withLock { state in
            guard !state.closed else { return }
            wake.signal()
        }
    }

    private func startThread() throws(DBusError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let poller = Unmanaged<WatchPoller>.fromOpaque(context!).takeRetainedValue()
            poller.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<WatchPoller>.fromOpaque(context).release()
            throw DBusError(.noMemory, "cannot start the D-Bus poll thread: \(Errno(rawValue: result))")
        }
        pthread_detach(thread)
    }

    private func run() {
        pollThread.store(UInt(pthread_self()), ordering: .relaxed)
        // The thread starts with the priority of the one that opened the
        // connection, often a libdispatch worker whose quality of service set
        // its own (as root, a `userInitiated` task's runs at nice -2, which a
        // user's never can). The connection is served at the process's
        // priority instead, whoever opened it; as far as the thread may:
        // one that cannot lower its own keeps it.
        try? ThreadPriority.takeProcessPriority()
        defer {
            pollThread.store(0, ordering: .relaxed)
            state.withLock { state in
                state.closed = true
                wake.close()
            }
        }
        // The poll set, rebuilt only when the watches change (not for every message).
        var entries: [Entry] = []
        var fds: [pollfd] = []
        var built: UInt64?
        // The clock as the deadline check read it, for the next wait: a
        // turn reads it once rather than twice (a forwarded call makes two).
        var lastRead: UInt64?
        while true {
            guard let (generation, deadline) = state.withLock({ $0.stopped ? nil : ($0.generation, $0.deadline) }) else { return }
            if built != generation {
                (built, entries) = state.withLock { ($0.generation, Array($0.enabled.values)) }
                fds = [pollfd(fd: wake.descriptor.rawValue, events: Int16(POLLIN), revents: 0)]
                for entry in entries { fds.append(pollfd(fd: entry.fd, events: entry.events, revents: 0)) }
            }
            for index in fds.indices { fds[index].revents = 0 }
            let wait = deadline.map { Self.milliseconds(until: $0, now: lastRead ?? DispatchTime.now().uptimeNanoseconds) } ?? -1
            lastRead = nil
            let ready = retryingOnInterrupt { fds.withUnsafeMutableBufferPointer { poll($0.baseAddress!, nfds_t($0.count), wait) } }
            guard ready >= 0 else {
                // EBADF, EINVAL, ENOMEM: it would fail again at once. The
                // connection fails with it, so that its calls and its owner hear.
                fail(.current)
                return
            }
            if fds[0].revents != 0 { wake.drain() }
            for (offset, entry) in entries.enumerated() where fds[offset + 1].revents != 0 {
                // Wait for the handler, so that a level-triggered readiness it
                // is about to consume is not reported again meanwhile.
                var readiness = Readiness(poller: self, entry: entry, revents: fds[offset + 1].revents)
                queue.sync(&readiness) { context in
                    let readiness = context!.assumingMemoryBound(to: Readiness.self)
                    readiness.pointee.poller.handle(readiness.pointee.entry, readiness.pointee.revents)
                }
            }
            let due = state.withLock { state -> Bool in
                guard let set = state.deadline else { return false }
                let now = DispatchTime.now().uptimeNanoseconds
                guard set <= now else {
                    lastRead = now
                    return false
                }
                state.deadline = nil
                return true
            }
            if due {
                var poller = self
                queue.sync(&poller) { context in context!.assumingMemoryBound(to: WatchPoller.self).pointee.onDeadline() }
            }
        }
    }

    /// What the loop's queue is given for one ready watch (`SerialQueue.sync`).
    private struct Readiness {
        let poller: WatchPoller
        let entry: Entry
        let revents: Int16
    }

    /// `poll`'s timeout for `deadline` from `now`: whole milliseconds,
    /// rounded up, so that the thread never wakes just before it and spins.
    static func milliseconds(until deadline: UInt64, now: UInt64) -> Int32 {
        guard deadline > now else { return 0 }
        return Int32(clamping: (deadline - now + 999_999) / 1_000_000)
    }
}
