import CDBus
import Dispatch
import Synchronization

extension Connection {
    /// Sends a method call and waits for its reply.
    ///
    ///     let reply = try await connection.call(message, timeout: .seconds(5))
    ///
    /// The call never blocks a thread: libdbus's pending call is completed on
    /// the loop queue and resumes this task. Exactly one outcome is delivered,
    /// whether the reply arrives, the deadline passes, the peer or this
    /// connection goes away, or the task is cancelled.
    ///
    /// - Parameters:
    ///   - message: a method call made with `Message.methodCall`.
    ///   - timeout: how long to wait for the reply (at most about 24 days).
    /// - Returns: the method-return message.
    /// - Throws: the peer's error reply; `NoReply` at the deadline or when the peer
    ///   left the bus; `Disconnected` when this connection closed; `NoReply` with
    ///   "cancelled" when the task was cancelled.
    ///   - awaitingAtMost: for a call to a unique name, refuse it (`LimitsExceeded`,
    ///     nothing sent) when that many calls to it already await an answer
    ///     (`callsAwaitingAnswer(from:)`); checked and counted in one step.
    public func call(
        _ message: Message, timeout: Duration = .seconds(25), awaitingAtMost limit: Int? = nil
    ) async throws(DBusError) -> Message {
        let pending = PendingCall(connection: self, destination: message.destination)
        pending.awaitingLimit = limit
        let result: Result<Message, DBusError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending.install(continuation)
                // Inline on this thread while the loop is idle (see `send`).
                loop.sync { start(pending, message, timeout: timeout) }
            }
        } onCancel: {
            pending.cancel()
        }
        return try result.get()
    }

    /// Calls a method and returns the reply's arguments.
    ///
    /// - Parameter autoStart: let the bus start the destination through D-Bus
    ///   activation when nobody owns its name (the default); `false` answers
    ///   `ServiceUnknown` at once instead.
    /// - Parameter awaitingAtMost: as for `call(_:timeout:awaitingAtMost:)`.
    public func call(
        _ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        _ arguments: [Value] = [], timeout: Duration = .seconds(25), autoStart: Bool = true, awaitingAtMost limit: Int? = nil
    ) async throws(DBusError) -> [Value] {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        if !autoStart { message.setNoAutoStart() }
        return try await call(message, timeout: timeout, awaitingAtMost: limit).arguments()
    }

    /// Starts a pending call on the loop queue.
    func start(_ pending: PendingCall, _ message: Message, timeout: Duration) {
        loop.assertOnQueue()
        guard let raw = loop.raw else {
            settle(pending, .failure(state.withLock { $0.closeReason } ?? .disconnected("not connected")))
            return
        }
        if let limit = pending.awaitingLimit, case .unique(let name) = pending.authority.destination,
            state.withLock({ $0.awaiting[name] ?? 0 }) >= limit
        {
            settle(pending, .failure(DBusError(.limitsExceeded, "\(limit) calls to \(name) await an answer already; not sent")))
            return
        }
        // Before the call, so that the bus's answers about the owner precede its reply.
        if let name = pending.authority.watchedName { watchOwner(for: pending, of: name, on: raw) }
        var handle: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &handle, milliseconds(timeout)) != 0 else {
            settle(pending, .failure(.noMemory))
            return
        }
        guard let handle else {
            settle(pending, .failure(.disconnected("the connection is closed")))
            return
        }
        guard pending.attach(handle) else {  // cancelled before it started
            stopWatchingOwner(for: pending)
            dbus_pending_call_cancel(handle)
            dbus_pending_call_unref(handle)
            return
        }
        pending.serial = message.serial
        pending.member = message.member
        startAwaiting(pending)
        pending.deadline = .now() + .milliseconds(Int(milliseconds(timeout)))
        state.withLock { $0.pendingCalls[ObjectIdentifier(pending)] = pending }
        dbus_pending_call_set_notify(handle, pendingCallCompleted, Unmanaged.passRetained(pending).toOpaque()) {
            if let data = $0 { Unmanaged<PendingCall>.fromOpaque(data).release() }
        }
        // The reply may have been read before the notify function was set, in
        // which case libdbus will not call it: check by hand.
        if dbus_pending_call_get_completed(handle) != 0 { complete(pending) }
    }

    /// Takes the reply of a completed pending call. Runs on the loop queue.
    fileprivate func complete(_ pending: PendingCall) {
        loop.assertOnQueue()
        guard let handle = pending.detach() else { return }
        state.withLock { _ = $0.pendingCalls.removeValue(forKey: ObjectIdentifier(pending)) }
        let reply = dbus_pending_call_steal_reply(handle)
        dbus_pending_call_unref(handle)
        guard let reply else {
            keepAwaitingAfterGivingUp(pending)
            settle(pending, .failure(.noReply("no reply arrived")))
            return
        }
        let message = Message(adopting: reply)
        switch pending.authority.verdict(for: message) {
        case .accept:
            // libdbus's own timeout has no sender: the bus still counts the call.
            if message.sender == nil { keepAwaitingAfterGivingUp(pending) } else { stopAwaiting(pending) }
            settle(pending, message.error.map { .failure($0) } ?? .success(message))
        case .failure(let error):
            stopAwaiting(pending)
            settle(pending, .failure(error))
        case .drop:
            // libdbus matches replies by serial alone, so any peer can answer a
            // call it guessed the serial of. Drop the forgery and keep waiting
            // for the real reply, which now reaches the filter as a stray.
            forgedReplies.add(1, ordering: .relaxed)
            reportDroppedReply(message, for: pending)
            awaitStrayReply(pending)
        }
    }

    /// Waits in the filter for the reply of a call whose pending-call record
    /// libdbus gave up on a forged reply. Runs on the loop queue.
    private func awaitStrayReply(_ pending: PendingCall) {
        loop.assertOnQueue()
        guard loop.raw != nil else {
            settle(pending, .failure(state.withLock { $0.closeReason } ?? .disconnected("not connected")))
            return
        }
        state.withLock { $0.strayReplyWaits[pending.serial] = pending }
        let timer = DispatchSource.makeTimerSource(queue: loop.queue)
        timer.schedule(deadline: pending.deadline)
        timer.setEventHandler { [self] in
            timer.cancel()
            if let waiting = state.withLock({ $0.strayReplyWaits.removeValue(forKey: pending.serial) }) {
                keepAwaitingAfterGivingUp(waiting)
                settle(waiting, .failure(.noReply("no genuine reply arrived within the time limit")))
            }
        }
        timer.resume()
        pending.strayTimer = timer
    }

    /// A reply that no libdbus pending call took: the genuine answer to a
    /// call whose record a forgery consumed, or a stray to drop. Loop queue.
    func receiveStrayReply(_ message: Message) {
        let found: (PendingCall, ReplyAuthority.Verdict)? = state.withLock { state in
            guard let pending = state.strayReplyWaits[message.replySerial] else { return nil }
            let verdict = pending.authority.verdict(for: message)
            guard verdict != .drop else { return nil }
            state.strayReplyWaits.removeValue(forKey: message.replySerial)
            return (pending, verdict)
        }
        guard let (waiting, verdict) = found else {
            noteLateAnswer(message)
            return
        }
        waiting.strayTimer?.cancel()
        stopAwaiting(waiting)
        noteLateAnswer(message)  // in case the call was cancelled meanwhile
        if case .failure(let error) = verdict {
            settle(waiting, .failure(error))
        } else {
            settle(waiting, message.error.map { .failure($0) } ?? .success(message))
        }
    }

    /// Delivers a call's outcome and forgets its owner watch. Loop queue.
    private func settle(_ pending: PendingCall, _ result: Result<Message, DBusError>) {
        stopWatchingOwner(for: pending)
        pending.finish(result)
    }

    /// Cancels a pending call on the loop queue after its task was cancelled.
    fileprivate func cancel(_ pending: PendingCall) {
        loop.queue.async { [self] in
            stopWatchingOwner(for: pending)
            keepAwaitingAfterGivingUp(pending)
            guard let handle = pending.detach() else { return }
            state.withLock { _ = $0.pendingCalls.removeValue(forKey: ObjectIdentifier(pending)) }
            dbus_pending_call_cancel(handle)
            dbus_pending_call_unref(handle)
        }
    }
}

/// libdbus's timeout is an `int` of milliseconds.
func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    let total = seconds.multipliedReportingOverflow(by: 1000)
    guard !total.overflow else { return Int32.max }
    let ms = total.partialValue + attoseconds / 1_000_000_000_000_000
    return Int32(clamping: max(ms, 0))
}

private func pendingCallCompleted(_ handle: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    let pending = Unmanaged<PendingCall>.fromOpaque(data).takeUnretainedValue()
    pending.connection.complete(pending)
}

/// One outgoing call waiting for its reply: a continuation that can be resumed
/// only once, and the libdbus pending-call handle while it is live.
final class PendingCall: @unchecked Sendable {
    // @unchecked: `state` is behind its mutex; `authority`, `serial`, `member`, `awaitingFrom`,
    // `deadline` and `strayTimer` are written and read only on the
    // connection's loop queue, and `completion` is set once, at creation.
    let connection: Connection
    /// Who may answer; for a well-known destination it learns the owners.
    var authority: ReplyAuthority
    /// Called with the outcome instead of resuming a continuation (the
    /// module's own calls made from the loop, such as `GetNameOwner`).
    private let completion: (@Sendable (Result<Message, DBusError>) -> Void)?
    var serial: UInt32 = 0
    var member: MemberName?
    /// The unique name the bus counts this call against, while it does.
    var awaitingFrom: String?
    /// Refuse to send when this many calls to the destination await an answer.
    var awaitingLimit: Int?
    var deadline: DispatchTime = .now()
    var strayTimer: (any DispatchSourceTimer)?
    private let state = Mutex(State())

    private struct State {
        var continuation: CheckedContinuation<Result<Message, DBusError>, Never>?
        var early: Result<Message, DBusError>?  // finished before the continuation was installed
        var handle: Handle?
        var cancelled = false
    }

    /// The libdbus handle, touched only on the connection's loop queue.
    private struct Handle: @unchecked Sendable {
        // @unchecked: the pointer is only dereferenced on the loop queue.
        let raw: OpaquePointer
    }

    init(
        connection: Connection, destination: BusName?,
        completion: (@Sendable (Result<Message, DBusError>) -> Void)? = nil
    ) {
        self.connection = connection
        self.authority = ReplyAuthority(destination: destination)
        self.completion = completion
    }

    func install(_ continuation: CheckedContinuation<Result<Message, DBusError>, Never>) {
        let early: Result<Message, DBusError>? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Delivers the outcome; only the first call has any effect.
    func finish(_ result: Result<Message, DBusError>) {
        if let completion {
            let first = state.withLock { state in
                defer { state.early = .failure(.noReply("already finished")) }
                return state.early == nil
            }
            if first { completion(result) }
            return
        }
        let continuation: CheckedContinuation<Result<Message, DBusError>, Never>? = state.withLock { state in
            if let continuation = state.continuation {
                state.continuation = nil
                state.early = .failure(.noReply("already finished"))  // blocks later installs
                return continuation
            }
            if state.early == nil { state.early = result }
            return nil
        }
        continuation?.resume(returning: result)
    }

    /// Records the libdbus handle; false if the call was cancelled meanwhile.
    func attach(_ handle: OpaquePointer) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.handle = Handle(raw: handle)
            return true
        }
    }

    /// Takes the handle back, once.
    func detach() -> OpaquePointer? {
        state.withLock { state in
            defer { state.handle = nil }
            return state.handle?.raw
        }
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
        finish(.failure(.noReply("the call was cancelled")))
        connection.cancel(self)
    }

    /// Fails the call because its connection closed. Runs on the loop queue.
    func abandon(with reason: DBusError) {
        strayTimer?.cancel()
        if let handle = detach() {
            dbus_pending_call_cancel(handle)
            dbus_pending_call_unref(handle)
        }
        finish(.failure(reason))
    }
}
