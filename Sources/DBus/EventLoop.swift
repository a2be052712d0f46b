import CDBus
import Dispatch

/// Services one libdbus connection on one serial queue.
///
/// libdbus tells us which file descriptors to watch and which timeouts to run.
/// Enabled watches are polled by a `WatchPoller` thread and handled on
/// `queue`; each enabled timeout is a Dispatch timer on `queue`. Every libdbus
/// call for the connection happens on `queue`, so libdbus never sees two
/// threads at once and no thread ever blocks inside libdbus on the socket.
final class EventLoop: @unchecked Sendable {
    // @unchecked: every stored property below except `queue` is read and written
    // only on `queue` (checked by `assertOnQueue` in debug builds).
    let queue: DispatchQueue
    private(set) var raw: OpaquePointer?
    private var dispatchScheduled = false
    /// Called on `queue` for each incoming message that is not a reply to a pending call.
    var onMessage: (Message) -> Void = { _ in }

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    var isOnQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    func assertOnQueue() { assert(isOnQueue, "libdbus touched off its loop queue") }

    /// Runs `body` on the loop queue and waits for it; runs it inline when already there.
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        return try queue.sync(execute: body)
    }

    // MARK: Attaching and detaching

    /// Installs the loop's callbacks on `connection`. Must run on `queue`.
    func attach(_ connection: OpaquePointer) {
        assertOnQueue()
        raw = connection
        poller = WatchPoller(queue: queue) { [weak self] entry, flags in self?.handleReady(entry, flags: flags) }
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
        raw = nil
    }

    // MARK: Dispatching

    /// Queues one round of dispatching; coalesces repeated requests.
    func scheduleDispatch() {
        guard isOnQueue else {
            queue.async { [self] in scheduleDispatch() }
            return
        }
        guard !dispatchScheduled else { return }
        dispatchScheduled = true
        queue.async { [self] in dispatchPending() }
    }

    /// Dispatches queued messages, yielding the queue after a batch so that
    /// watches and cross-thread work are serviced between batches.
    func dispatchPending() {
        assertOnQueue()
        dispatchScheduled = false
        guard let connection = raw else { return }
        var budget = 64
        while budget > 0, dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            _ = dbus_connection_dispatch(connection)
            budget -= 1
        }
        if raw != nil, dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            scheduleDispatch()
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
        guard raw != nil, poller?.isEnabled(entry) == true else { return }
        _ = dbus_watch_handle(entry.watch, flags)
        // Dispatch what was just read where it was read, without another
        // turn of the queue (not inside libdbus here, so it is safe).
        if !dispatchScheduled { dispatchPending() }
    }

    /// Timer sources of one libdbus timeout.
    fileprivate final class TimerSource {
        var source: (any DispatchSourceTimer)?
        func cancel() {
            source?.cancel()
            source = nil
        }
    }

    // MARK: Timeouts

    /// Re-creates the timer on each change: it holds no fd, and a fresh timer
    /// restarts the interval, as libdbus expects after a toggle.
    fileprivate func arm(timeout: OpaquePointer) {
        let record = timer(of: timeout)
        record.cancel()
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = DispatchTimeInterval.milliseconds(Int(max(dbus_timeout_get_interval(timeout), 0)))
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { [self] in
            _ = dbus_timeout_handle(timeout)
            scheduleDispatch()
        }
        record.source = source
        source.resume()
    }

    fileprivate func timer(of timeout: OpaquePointer) -> TimerSource {
        if let data = dbus_timeout_get_data(timeout) {
            return Unmanaged<TimerSource>.fromOpaque(data).takeUnretainedValue()
        }
        let record = TimerSource()
        dbus_timeout_set_data(timeout, Unmanaged.passRetained(record).toOpaque()) { data in
            if let data { Unmanaged<TimerSource>.fromOpaque(data).release() }
        }
        return record
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
    guard let timeout, dbus_timeout_get_data(timeout) != nil else { return }
    loop(data).timer(of: timeout).cancel()
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
