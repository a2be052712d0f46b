import CDBus
import Dispatch

/// Services one libdbus connection on one serial queue.
///
/// libdbus tells us which file descriptors to watch and which timeouts to run;
/// each enabled watch becomes a Dispatch read or write source and each enabled
/// timeout a timer source, all targeting `queue`. Every libdbus call for the
/// connection happens on `queue`, so libdbus never sees two threads at once
/// and no thread ever blocks inside libdbus waiting for the socket.
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

    fileprivate final class WatchSources {
        var sources: [any DispatchSourceProtocol] = []
        func cancel() {
            sources.forEach { $0.cancel() }
            sources = []
        }
    }

    fileprivate func arm(_ watch: OpaquePointer) {
        let record = sources(of: watch)
        record.cancel()
        guard dbus_watch_get_enabled(watch) != 0 else { return }
        let fd = dbus_watch_get_unix_fd(watch)
        guard fd >= 0 else { return }
        let flags = dbus_watch_get_flags(watch)
        if flags & DBUS_WATCH_READABLE.rawValue != 0 {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [self] in
                _ = dbus_watch_handle(watch, DBUS_WATCH_READABLE.rawValue)
                scheduleDispatch()
            }
            record.sources.append(source)
        }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [self] in
                _ = dbus_watch_handle(watch, DBUS_WATCH_WRITABLE.rawValue)
                scheduleDispatch()
            }
            record.sources.append(source)
        }
        record.sources.forEach { $0.resume() }
    }

    fileprivate func sources(of watch: OpaquePointer) -> WatchSources {
        if let data = dbus_watch_get_data(watch) {
            return Unmanaged<WatchSources>.fromOpaque(data).takeUnretainedValue()
        }
        let record = WatchSources()
        dbus_watch_set_data(watch, Unmanaged.passRetained(record).toOpaque()) { data in
            if let data { Unmanaged<WatchSources>.fromOpaque(data).release() }
        }
        return record
    }

    // MARK: Timeouts

    fileprivate func arm(timeout: OpaquePointer) {
        let record = sources(ofTimeout: timeout)
        record.cancel()
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = DispatchTimeInterval.milliseconds(Int(max(dbus_timeout_get_interval(timeout), 0)))
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { [self] in
            _ = dbus_timeout_handle(timeout)
            scheduleDispatch()
        }
        record.sources.append(source)
        source.resume()
    }

    fileprivate func sources(ofTimeout timeout: OpaquePointer) -> WatchSources {
        if let data = dbus_timeout_get_data(timeout) {
            return Unmanaged<WatchSources>.fromOpaque(data).takeUnretainedValue()
        }
        let record = WatchSources()
        dbus_timeout_set_data(timeout, Unmanaged.passRetained(record).toOpaque()) { data in
            if let data { Unmanaged<WatchSources>.fromOpaque(data).release() }
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
    loop(data).arm(watch!)
    return 1
}

private func watchRemoved(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let watch, dbus_watch_get_data(watch) != nil else { return }
    loop(data).sources(of: watch).cancel()
}

private func watchToggled(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    loop(data).arm(watch!)
}

private func timeoutAdded(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    loop(data).arm(timeout: timeout!)
    return 1
}

private func timeoutRemoved(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let timeout, dbus_timeout_get_data(timeout) != nil else { return }
    loop(data).sources(ofTimeout: timeout).cancel()
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
