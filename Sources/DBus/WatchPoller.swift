import CDBus
import Dispatch
import Glibc
import Posix
import Synchronization

/// Waits for libdbus's enabled watches on one dedicated thread with `poll()`,
/// and handles each ready watch on the connection's loop queue.
///
/// Why not Dispatch read and write sources: libdbus closes a socket right
/// after removing its watch, while libdispatch unregisters a cancelled fd
/// source asynchronously. A new connection can then be given the same fd
/// number while the stale registration is still pending, and its own source
/// never fires (seen: a `Hello` reply never read while tests opened and closed
/// many connections). Here a watch leaves the poll set synchronously, before
/// libdbus closes anything, and a readiness seen for a watch that has since
/// been removed is dropped on the queue, where removal happens.
final class WatchPoller: Sendable {
    /// One libdbus watch as the poller sees it.
    final class Entry: @unchecked Sendable {
        // @unchecked: `watch` is only passed to libdbus on the loop queue;
        // `fd` and `flags` are immutable.
        let watch: OpaquePointer
        let fd: Int32
        let flags: UInt32
        init(watch: OpaquePointer) {
            self.watch = watch
            self.fd = dbus_watch_get_unix_fd(watch)
            self.flags = dbus_watch_get_flags(watch)
        }
    }

    private struct State {
        var enabled: [ObjectIdentifier: Entry] = [:]
        var stopped = false
        /// The wake-up pipe is closed: the thread has ended (stopped, or its poll failed).
        var closed = false
    }

    private let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let queue: DispatchQueue
    private let handle: @Sendable (Entry, UInt32) -> Void
    private let fail: @Sendable (Errno) -> Void
    private let poll: Poll

    /// `poll(2)`'s shape: a seam, so that tests can make it fail.
    typealias Poll = @Sendable (UnsafeMutablePointer<pollfd>, nfds_t, Int32) -> Int32

    /// - Parameters:
    ///   - handle: runs on `queue` for a ready watch; it must check the
    ///     entry is still registered (`isEnabled`) before touching libdbus.
    ///   - fail: runs once, on the poll thread, when `poll` fails with
    ///     anything but `EINTR`; the thread has stopped waiting (a failure
    ///     that would recur is reported, never spun on).
    /// - Throws: `NoMemory` naming the call when the wake-up pipe or the
    ///   thread cannot be made (descriptors or threads exhausted).
    init(queue: DispatchQueue, poll: @escaping Poll = { Glibc.poll($0, $1, $2) },
         handle: @escaping @Sendable (Entry, UInt32) -> Void, fail: @escaping @Sendable (Errno) -> Void) throws(DBusError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw DBusError(.noMemory, "cannot create the D-Bus poller's wake-up pipe: \(Errno.current)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.queue = queue
        self.poll = poll
        self.handle = handle
        self.fail = fail
        do {
            try startThread()
        } catch {
            close(wakeRead)
            close(wakeWrite)
            throw error
        }
    }

    /// Adds, updates or (with `enabled == false`) removes a watch. Synchronous:
    /// after it returns, the poll thread no longer waits on a removed watch.
    func set(_ entry: Entry, enabled: Bool) {
        state.withLock { state in
            if enabled { state.enabled[ObjectIdentifier(entry)] = entry } else { state.enabled[ObjectIdentifier(entry)] = nil }
        }
        wake()
    }

    func isEnabled(_ entry: Entry) -> Bool { state.withLock { $0.enabled[ObjectIdentifier(entry)] != nil } }

    /// Ends the thread; the pipe is closed by the thread on its way out.
    func stop() {
        state.withLock { $0.stopped = true }
        wake()
    }

    /// Under the lock that closing takes too: a wake-up never writes to a
    /// descriptor number the thread has closed (and the process reused).
    private func wake() {
        state.withLock { state in
            guard !state.closed else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)  // a full pipe already means "wake up"
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
        defer {
            state.withLock { state in
                state.closed = true
                close(wakeRead)
                close(wakeWrite)
            }
        }
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            guard let entries = state.withLock({ $0.stopped ? nil : Array($0.enabled.values) }) else { return }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for entry in entries {
                var events: Int16 = 0
                if entry.flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if entry.flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: entry.fd, events: events, revents: 0))
            }
            let ready = retryingOnInterrupt { fds.withUnsafeMutableBufferPointer { poll($0.baseAddress!, nfds_t($0.count), -1) } }
            guard ready >= 0 else {
                // EBADF, EINVAL, ENOMEM: it would fail again at once. The
                // connection fails with it, so that its calls and its owner hear.
                fail(.current)
                return
            }
            if fds[0].revents != 0 { _ = read(wakeRead, &drain, drain.count) }
            for (entry, polled) in zip(entries, fds.dropFirst()) where polled.revents != 0 {
                var flags: UInt32 = 0
                if polled.revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if polled.revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if polled.revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                if polled.revents & Int16(POLLERR | POLLNVAL) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                // Wait for the handler, so that a level-triggered readiness it
                // is about to consume is not reported again meanwhile.
                queue.sync { handle(entry, flags) }
            }
        }
    }
}
