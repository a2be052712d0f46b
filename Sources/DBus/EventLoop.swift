import CDBus
import CDispatch
import Dispatch
import Glibc
import Synchronization

/// Services one libdbus connection on one serial queue.
///
/// libdbus tells us which file descriptors to watch and which timeouts to run.
/// Enabled watches are polled by a `WatchPoller` thread and handled on
/// `queue`; enabled timeouts share that thread's poll timeout, set for the
/// earliest of them, and are handled on `queue` too. Every libdbus
/// call for the connection happens on `queue`, so libdbus never sees two
/// threads at once and no thread ever blocks inside libdbus on the socket.
final class EventLoop: @unchecked Sendable {
    // @unchecked: every stored property below except `queue` is read and written
    // only on `queue` (checked by `assertOnQueue` in debug builds).
    let queue: DispatchQueue
    private(set) var raw: OpaquePointer?
    /// Whether the current turn should dispatch before it ends. Touched only on `queue`.
    private var dispatchWanted = false
    /// Called on `queue` for each incoming message, replies included (`Connection.receiveReply` matches them).
    var onMessage: (Message) -> Void = { _ in }
    /// Called on `queue` with the serial of each call whose deadline
    /// (`setCallDeadline`) has passed.
    var onCallDeadline: (UInt32) -> Void = { _ in }
    /// Told, on the queue, when the loop cannot go on (its poll failed): the
    /// connection closes with that error.
    var onFailure: (DBusError) -> Void = { _ in }

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// What libdispatch holds for `queueKey` on this loop's queue (the
    /// overlay's box of the value set in `init`), read once: asking whether
    /// this thread is on the queue is then one `dispatch_get_specific` and a
    /// comparison, where `DispatchQueue.getSpecific` also retained, released
    /// and unboxed (175 instructions; every send and wake-up asks).
    private let queueMarker: UnsafeMutableRawPointer?
    /// The value set for `queueKey`, for the overlay's own lookup should
    /// the marker not be found (an overlay that keys its values otherwise).
    private let queueID: ObjectIdentifier

    init(label: String) {
        let queue = DispatchQueue(label: label)
        queueID = ObjectIdentifier(queue)
        queue.setSpecific(key: Self.queueKey, value: queueID)
        self.queue = queue
        queueMarker = queue.sync { dispatch_get_specific(Self.queueKeyAddress) }
    }

    /// The key as libdispatch knows it: the overlay passes the key object's address.
    private static var queueKeyAddress: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(queueKey).toOpaque()) }

    var isOnQueue: Bool {
        if isInTurn { return true }
        guard let queueMarker else { return DispatchQueue.getSpecific(key: Self.queueKey) == queueID }
        return dispatch_get_specific(Self.queueKeyAddress) == queueMarker
    }

    func assertOnQueue() { assert(isOnQueue, "libdbus touched off its loop queue") }

    /// Runs `body` on the loop queue and waits for it; runs it inline when already there.
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        return try queue.sync { try turn(body) }
    }

    // MARK: Turns

    /// How deep the queue is in `turn`s. Touched only on `queue`.
    private var turnDepth = 0
    /// The executor of the connection's tasks that run on the loop, if any.
    /// Touched only on `queue`.
    weak var executor: LoopExecutor?

    /// The thread running the outermost `turn`, or 0 between turns. Written
    /// only on `queue`; read from any thread, where it can equal the reader
    /// only if the reader set it, that is, only inside its own turn.
    private let turnThread = Atomic<UInt>(0)

    /// Whether this thread is on the queue inside a `turn`, which will run
    /// the loop's task jobs before it ends. One load and `pthread_self`:
    /// every send, wake-up and job asks, six times a forwarded call, and
    /// `dispatch_get_specific` cost 70 instructions and three or four
    /// instruction-cache lines each time.
    var isInTurn: Bool { turnThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Runs `body` (on the queue), then, at the end of the outermost turn,
    /// the dispatching it asked for and the jobs of the tasks that run on
    /// the loop: those `body` woke run right away, on this thread.
    func turn<T>(_ body: () throws -> T) rethrows -> T {
        assertOnQueue()
        turnDepth += 1
        if turnDepth == 1 { turnThread.store(UInt(pthread_self()), ordering: .relaxed) }
        defer {
            if turnDepth == 1 {
                endTurn()
                turnThread.store(0, ordering: .relaxed)
            }
            turnDepth -= 1
        }
        return try body()
    }

    // MARK: Attaching and detaching

    /// Installs the loop's callbacks on `connection`. Must run on `queue`.
    /// - Throws: when the poll thread cannot be started; nothing is installed then.
    func attach(_ connection: OpaquePointer, poll: @escaping WatchPoller.Poll = { Glibc.poll($0, $1, $2) }) throws(DBusError) {
        assertOnQueue()
        poller = try WatchPoller(queue: queue, poll: poll, handle: { [weak self] entry, flags in self?.handleReady(entry, flags: flags) },
                                 onDeadline: { [weak self] in self?.turn { self?.fireDueTimeouts() } },
                                 fail: { [weak self] error in
                                     guard let loop = self else { return }
                                     // Disconnected, as the bus leaving is: nothing asked on it was answered.
                                     loop.queue.async { loop.onFailure(.disconnected("the D-Bus poll failed: \(error)")) }
                                 })
        raw = connection
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            connection, watchAdded, watchRemoved, watchToggled, context, nil)
        dbus_connection_set_timeout_functions(
            connection, timeoutAdded, timeoutRemoved, timeoutToggled, context, nil)
        dbus_connection_set_dispatch_status_function(connection, dispatchStatusChanged, context, nil)
        dbus_connection_set_wakeup_main_function(connection, wakeUp, context, nil)
        dbus_connection_add_filter(connection, filterMessage, context, nil)
        scheduleDispatch()
    }

    /// Removes every callback, cancelling all sources. Must run on `queue`.
    /// After this, libdbus holds no pointer to the loop.
    func detach() {
        assertOnQueue()
        guard let connection = raw else { return }
        dbus_connection_remove_filter(connection, filterMessage, Unmanaged.passUnretained(self).toOpaque())
        // Replacing the functions makes libdbus call the old remove function on
        // every watch and timeout, which cancels their sources.
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        poller?.stop()
        poller = nil
        stopTimer()
        raw = nil
    }

    // MARK: Dispatching

    /// Asks for a round of dispatching: at the end of the current turn when
    /// there is one (the common case: libdbus has just read a message on the
    /// poll thread, which then dispatches it itself), else in a turn of its own.
    func scheduleDispatch() {
        if isInTurn {
            dispatchWanted = true
            return
        }
        queue.async { [self] in turn { dispatchWanted = true } }
    }

    /// Dispatches queued messages, at most a batch of them.
    private func dispatchPending() {
        guard let connection = raw else { return }
        var budget = 64
        // dbus_connection_dispatch returns the status after its message, so
        // the queue is looked at (under the connection's lock) once a message.
        var status = dbus_connection_get_dispatch_status(connection)
        while status == DBUS_DISPATCH_DATA_REMAINS, budget > 0, raw != nil {
            status = dbus_connection_dispatch(connection)
            budget -= 1
        }
        if raw != nil, status == DBUS_DISPATCH_DATA_REMAINS {
            dispatchWanted = true
        }
    }

    /// The end of the outermost turn: one batch of dispatching if asked for,
    /// then the jobs of the tasks it (or the turn) woke. What is left (more
    /// messages than a batch, or messages the jobs' calls read) gets a turn
    /// of its own, so that watches and cross-thread work are serviced between
    /// batches.
    private func endTurn() {
        if dispatchWanted {
            dispatchWanted = false
            dispatchPending()
        }
        executor?.runJobs()
        if dispatchWanted {
            dispatchWanted = false
            queue.async { [self] in turn { dispatchWanted = true } }
        }
    }

    // MARK: Watches

    /// Waits on the enabled watches; created by `attach`, stopped by `detach`.
    private var poller: WatchPoller?

    fileprivate func watchChanged(_ watch: OpaquePointer, removed: Bool = false) {
        let entry: WatchPoller.Entry
        if let data = dbus_watch_get_data(watch) {
            entry = Unmanaged<WatchPoller.Entry>.fromOpaque(data).takeUnretainedValue()
        } else {
            guard !removed else { return }
            entry = WatchPoller.Entry(watch: watch)
            dbus_watch_set_data(watch, Unmanaged.passRetained(entry).toOpaque()) { data in
                if let data { Unmanaged<WatchPoller.Entry>.fromOpaque(data).release() }
            }
        }
        poller?.set(entry, enabled: !removed && dbus_watch_get_enabled(watch) != 0)
    }

    /// Handles a ready watch on the queue, unless it was removed or disabled
    /// after the poll thread saw it.
    private func handleReady(_ entry: WatchPoller.Entry, flags: UInt32) {
        turn {
            guard raw != nil, poller?.isEnabled(entry) == true else { return }
            _ = dbus_watch_handle(entry.watch, flags)
            // Dispatch what was just read where it was read, at the end of
            // this turn (outside libdbus, so it is safe).
            dispatchWanted = true
        }
    }

    // MARK: Timeouts

    /// One enabled libdbus timeout: when it next fires, and its period.
    private struct Deadline {
        let timeout: OpaquePointer
        var next: DispatchTime
        let interval: DispatchTimeInterval
    }

    /// Every enabled libdbus timeout, by address.
    private var deadlines: [UInt: Deadline] = [:]
    /// The deadlines of the connection's calls awaiting replies, by serial.
    /// Both kinds share the poll thread's one deadline, set for the earliest
    /// of them: nothing is made and destroyed per call.
    private var callDeadlines: [UInt32: DispatchTime] = [:]
    private var timerSetFor: DispatchTime?

    /// Calls `onCallDeadline` with `serial` at `deadline`, unless cleared first. Runs on `queue`.
    func setCallDeadline(_ deadline: DispatchTime, for serial: UInt32) {
        callDeadlines[serial] = deadline
        if let timerSetFor, timerSetFor <= deadline { return }
        timerSetFor = deadline
        poller?.setDeadline(deadline)
    }

    /// Forgets a call's deadline (its answer came). Runs on `queue`.
    func clearCallDeadline(for serial: UInt32) {
        callDeadlines.removeValue(forKey: serial)
    }

    /// (Re)starts `timeout`'s interval when enabled, forgets it when not, as
    /// libdbus expects after an add or a toggle. Runs on `queue`.
    fileprivate func arm(timeout: OpaquePointer) {
        let key = UInt(bitPattern: timeout)
        guard dbus_timeout_get_enabled(timeout) != 0 else {
            disarm(timeout: timeout)
            return
        }
        let interval = DispatchTimeInterval.milliseconds(Int(max(dbus_timeout_get_interval(timeout), 0)))
        deadlines[key] = Deadline(timeout: timeout, next: .now() + interval, interval: interval)
        rescheduleTimer()
    }

    fileprivate func disarm(timeout: OpaquePointer) {
        deadlines.removeValue(forKey: UInt(bitPattern: timeout))
    }

    /// Sets the poll thread's deadline for the earliest timeout, unless it is
    /// already set no later. It is never moved later: one that comes early
    /// finds nothing due and is set again. Moving it wakes the poll thread,
    /// and a call that comes and goes within its timeout (nearly every call)
    /// would move it twice.
    private func rescheduleTimer() {
        var found: DispatchTime?
        for deadline in deadlines.values where found.map({ deadline.next < $0 }) ?? true { found = deadline.next }
        for deadline in callDeadlines.values where found.map({ deadline < $0 }) ?? true { found = deadline }
        guard let earliest = found else { return }
        if let timerSetFor, timerSetFor <= earliest { return }
        timerSetFor = earliest
        poller?.setDeadline(earliest)
    }

    /// Handles every timeout that is due (each may remove or re-add
    /// timeouts), starts the due ones' next intervals, re-sets the timer.
    private func fireDueTimeouts() {
        timerSetFor = nil
        let now = DispatchTime.now()
        for (key, deadline) in deadlines where deadline.next <= now {
            guard deadlines[key] != nil else { continue }  // removed by an earlier one
            deadlines[key]?.next = now + deadline.interval
            _ = dbus_timeout_handle(deadline.timeout)
        }
        let due = callDeadlines.filter { $0.value <= now }.keys
        for serial in due where callDeadlines.removeValue(forKey: serial) != nil { onCallDeadline(serial) }
        rescheduleTimer()
        scheduleDispatch()
    }

    /// Forgets the timeouts (on detach, after libdbus removed every one; the poll thread has stopped).
    private func stopTimer() {
        timerSetFor = nil
        deadlines = [:]
        callDeadlines = [:]
    }
}

// MARK: - C callbacks
// libdbus calls these on the loop queue, because every libdbus call for the
// connection is made there. `data` is the unretained EventLoop: the loop
// outlives the callbacks because `detach` removes them before it is released.

private func loop(_ data: UnsafeMutableRawPointer?) -> EventLoop {
    Unmanaged<EventLoop>.fromOpaque(data!).takeUnretainedValue()
}

private func watchAdded(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    loop(data).watchChanged(watch!)
    return 1
}

private func watchRemoved(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    loop(data).watchChanged(watch!, removed: true)
}

private func watchToggled(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    loop(data).watchChanged(watch!)
}

private func timeoutAdded(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    loop(data).arm(timeout: timeout!)
    return 1
}

private func timeoutRemoved(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let timeout else { return }
    loop(data).disarm(timeout: timeout)
}

private func timeoutToggled(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    loop(data).arm(timeout: timeout!)
}

private func dispatchStatusChanged(
    _ connection: OpaquePointer?, _ status: DBusDispatchStatus, _ data: UnsafeMutableRawPointer?
) {
    // Never dispatch from inside this callback: libdbus holds its lock here.
    if status == DBUS_DISPATCH_DATA_REMAINS { loop(data).scheduleDispatch() }
}

private func wakeUp(_ data: UnsafeMutableRawPointer?) {
    loop(data).scheduleDispatch()
}

private func filterMessage(
    _ connection: OpaquePointer?, _ message: OpaquePointer?, _ data: UnsafeMutableRawPointer?
) -> DBusHandlerResult {
    guard let message else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let loop = loop(data)
    loop.onMessage(Message(adopting: dbus_message_ref(message)))
    return DBUS_HANDLER_RESULT_HANDLED
}
