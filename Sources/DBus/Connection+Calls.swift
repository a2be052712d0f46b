import Dispatch
import Synchronization

extension Connection {
    /// Sends a method call and waits for its reply.
    ///
    ///     let reply = try await connection.call(message, timeout: .seconds(5))
    ///
    /// The call never blocks a thread: its reply is read and judged on the
    /// loop queue (`receiveReply`), which resumes this task. Exactly one outcome is delivered,
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
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`): all it
    /// does before it waits is hand the message to the loop, and the reply
    /// resumes the caller where it was. A hop to the generic executor and
    /// back cost a task with an executor preference (the daemon's calls)
    /// two reads of that preference under the task's lock.
    nonisolated(nonsending) public func call(
        _ message: Message, timeout: Duration = .seconds(25), awaitingAtMost limit: Int? = nil
    ) async throws(DBusError) -> Message {
        let pending = PendingCall(connection: self, destination: message.destination)
        pending.awaitingLimit = limit
        let result: Result<Message, DBusError> = await withTaskCancellationHandler {
            // Unchecked: `PendingCall` resumes its continuation exactly once
            // (`finish` takes it under the lock), which is what a checked one
            // would verify at the price of an object and atomics on every call.
            await withUnsafeContinuation { continuation in
                pending.install(continuation)
                // Inline on this thread while the loop is idle (see `send`).
                loop.sync { start(pending, message, timeout: timeout) }
            }
        } onCancel: {
            pending.cancel()
        }
        return try result.get()
    }

    /// Sends a method call now and returns at once; `SentCall.reply()`
    /// awaits its answer. A caller overlaps the round trip with its own work
    /// this way (the launcher asks systemd for the session's environment
    /// while it looks the application up). The reply rule, the deadline
    /// (counted from now) and `awaitingAtMost` are those of `call`.
    public func send(
        call message: Message, timeout: Duration = .seconds(25), awaitingAtMost limit: Int? = nil
    ) -> SentCall {
        let pending = PendingCall(connection: self, destination: message.destination)
        pending.awaitingLimit = limit
        loop.sync { start(pending, message, timeout: timeout) }
        return SentCall(pending: pending)
    }

    /// Calls a method and returns the reply's arguments.
    ///
    /// - Parameter autoStart: let the bus start the destination through D-Bus
    ///   activation when nobody owns its name (the default); `false` answers
    ///   `ServiceUnknown` at once instead.
    /// - Parameter awaitingAtMost: as for `call(_:timeout:awaitingAtMost:)`.
    nonisolated(nonsending) public func call(
        _ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        _ arguments: [Value] = [], timeout: Duration = .seconds(25), autoStart: Bool = true, awaitingAtMost limit: Int? = nil
    ) async throws(DBusError) -> [Value] {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        if !autoStart { message.setNoAutoStart() }
        return try await call(message, timeout: timeout, awaitingAtMost: limit).arguments()
    }

    /// `call` with a body written as it was made (`EncodedBody`), for a
    /// call sent with every URL.
    nonisolated(nonsending) public func call(
        _ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        body: EncodedBody, timeout: Duration = .seconds(25), autoStart: Bool = true, awaitingAtMost limit: Int? = nil
    ) async throws(DBusError) -> [Value] {
        let message = Message.methodCall(destination: destination, path: path, interface: interface, member: member, body: body)
        if !autoStart { message.setNoAutoStart() }
        return try await call(message, timeout: timeout, awaitingAtMost: limit).arguments()
    }

    /// Sends a call and records it by serial, with its deadline, on the loop queue.
    ///
    /// A reply is taken only when `ReplyAuthority` accepts it (the wire
    /// matches by serial alone, so the first reply is not necessarily the
    /// genuine one); a forgery is dropped and the call goes on waiting. The
    /// deadline is one entry in the loop's table.
    func start(_ pending: PendingCall, _ message: Message, timeout: Duration) {
        loop.assertOnQueue()
        guard loop.socket != nil else {
            settle(pending, .failure(state.withLock { $0.closeReason } ?? .disconnected("the connection is closed")))
            return
        }
        if let refused = startAwaiting(pending, atMost: pending.awaitingLimit) {
            settle(pending, .failure(refused))
            return
        }
        guard pending.begin() else {  // cancelled before it started
            stopAwaiting(pending)
            return
        }
        if let name = pending.authority.watchedName {
            // Before the call, so that the bus's answers about the owner precede its reply.
            watchOwner(for: pending, of: name)
            // A call that may not start its destination, to a name the bus
            // said last nobody owns: the bus would answer NameHasNoOwner, so
            // it is answered so here, without the round trip (the launcher
            // asks systemd's user manager at every launch, and a system
            // without one paid a round trip on each). A new owner's
            // NameOwnerChanged ends this as it reaches us.
            if message.flags.contains(.noAutoStart), isKnownUnowned(name) {
                stopAwaiting(pending)
                stopWatchingOwner(for: pending)
                settle(pending, .failure(DBusError(.nameHasNoOwner, "the name \(name) has no owner, as the bus said last")))
                return
            }
        }
        let serial: UInt32
        do {
            serial = try loop.send(message)
        } catch {
            stopAwaiting(pending)
            stopWatchingOwner(for: pending)
            settle(pending, .failure(error))
            return
        }
        pending.serial = serial
        pending.member = message.member
        pending.deadline = .now() + .milliseconds(Int(milliseconds(timeout)))
        state.withLock { $0.calls[serial] = pending }
        loop.setCallDeadline(pending.deadline, for: serial)
    }

    /// A method return or error arrived: the answer to one of our calls if
    /// someone it may come from sent it, a forgery to drop, or a late answer
    /// to a call given up on. Loop queue.
    func receiveReply(_ message: Message) {
        let serial = message.replySerial
        let found: (PendingCall, ReplyAuthority.Verdict)? = state.withLock { state in
            guard let pending = state.calls[serial] else { return nil }
            let verdict = pending.authority.verdict(for: message)
            if verdict != .drop { state.calls[serial] = nil }
            return (pending, verdict)
        }
        guard let (pending, verdict) = found else {
            noteLateAnswer(message)
            return
        }
        switch verdict {
        case .accept:
            loop.clearCallDeadline(for: serial)
            stopAwaiting(pending)
            settle(pending, message.error.map { .failure($0) } ?? .success(message))
        case .failure(let error):
            loop.clearCallDeadline(for: serial)
            stopAwaiting(pending)
            settle(pending, .failure(error))
        case .drop:
            // Any peer can answer a serial it guessed: drop the forgery and
            // keep waiting for the genuine reply.
            forgedReplies.add(1, ordering: .relaxed)
            if pending.noteForgery() { reportDroppedReply(message, for: pending) }
        }
    }

    /// A call's deadline passed without a genuine answer. Loop queue.
    func callTimedOut(_ serial: UInt32) {
        guard let pending = state.withLock({ $0.calls.removeValue(forKey: serial) }) else { return }
        // The bus still counts the call until its answer comes after all.
        keepAwaitingAfterGivingUp(pending)
        settle(pending, .failure(.noReply(pending.hadForgery
            ? "no genuine reply arrived within the time limit" : "no reply arrived within the time limit")))
    }

    /// Delivers a call's outcome and forgets its owner watch. Loop queue.
    private func settle(_ pending: PendingCall, _ result: Result<Message, DBusError>) {
        stopWatchingOwner(for: pending)
        pending.finish(result)
    }

    /// Forgets a call after its task was cancelled, on the loop queue.
    fileprivate func cancel(_ pending: PendingCall) {
        loop.queue.async { [self] in
            stopWatchingOwner(for: pending)
            guard pending.serial != 0, state.withLock({ $0.calls.removeValue(forKey: pending.serial) }) != nil else { return }
            loop.clearCallDeadline(for: pending.serial)
            keepAwaitingAfterGivingUp(pending)
        }
    }
}

/// A method call already sent (`Connection.send(call:)`), whose reply is awaited later.
public struct SentCall: Sendable {
    let pending: PendingCall

    /// Waits for the reply, which may have come already.
    /// - Throws: as `Connection.call`: the peer's error, `NoReply` at the
    ///   deadline, `Disconnected`; cancelling the waiting task gives up the call.
    nonisolated(nonsending) public func reply() async throws(DBusError) -> Message {
        let result: Result<Message, DBusError> = await withTaskCancellationHandler {
            await withUnsafeContinuation { pending.install($0) }  // exactly once: see `call`
        } onCancel: {
            pending.cancel()
        }
        return try result.get()
    }
}

/// A timeout in whole milliseconds, as `poll` takes it.
func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    let total = seconds.multipliedReportingOverflow(by: 1000)
    guard !total.overflow else { return Int32.max }
    let ms = total.partialValue + attoseconds / 1_000_000_000_000_000
    return Int32(clamping: max(ms, 0))
}

/// One outgoing call waiting for its reply: a continuation that can be resumed
/// only once, kept in the connection's table by serial while it is sent.
final class PendingCall: @unchecked Sendable {
    // @unchecked: `state` is behind its mutex; `authority`, `serial`, `member`, `awaitingFrom`,
    // `awaitingLimit`, `deadline` and `forgeries` are written and read only on the
    // connection's loop queue, and `completion` is set once, at creation. Being
    // one thread's, those need no run-time exclusivity check either (as `EventLoop`'s).
    let connection: Connection
    /// Who may answer; for a well-known destination it learns the owners.
    @exclusivity(unchecked) var authority: ReplyAuthority
    /// Called with the outcome instead of resuming a continuation (the
    /// module's own calls made from the loop, such as `GetNameOwner`).
    private let completion: (@Sendable (Result<Message, DBusError>) -> Void)?
    /// The call's serial once sent (0 before).
    @exclusivity(unchecked) var serial: UInt32 = 0
    @exclusivity(unchecked) var member: MemberName?
    /// The unique name the bus counts this call against, while it does.
    @exclusivity(unchecked) var awaitingFrom: String?
    /// Refuse to send when this many calls to the destination await an answer.
    @exclusivity(unchecked) var awaitingLimit: Int?
    /// When the call gives up waiting, set as it is sent (a constant until
    /// then: the clock read for an initial value was thrown away at once).
    @exclusivity(unchecked) var deadline = DispatchTime(uptimeNanoseconds: 0)
    /// How many forged replies were dropped for this call.
    @exclusivity(unchecked) private var forgeries = 0
    private let state = Mutex(State())

    private struct State {
        var continuation: UnsafeContinuation<Result<Message, DBusError>, Never>?
        var early: Result<Message, DBusError>?  // finished before the continuation was installed
        var cancelled = false
    }

    init(
        connection: Connection, destination: BusName?,
        completion: (@Sendable (Result<Message, DBusError>) -> Void)? = nil
    ) {
        self.connection = connection
        self.authority = ReplyAuthority(destination: destination)
        self.completion = completion
    }

    func install(_ continuation: UnsafeContinuation<Result<Message, DBusError>, Never>) {
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
        let continuation: UnsafeContinuation<Result<Message, DBusError>, Never>? = state.withLock { state in
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

    /// Whether the call may be sent: false if it was cancelled meanwhile. Loop queue.
    func begin() -> Bool {
        state.withLock { !$0.cancelled }
    }

    /// Counts a dropped forgery; true for the first. Loop queue.
    func noteForgery() -> Bool {
        forgeries += 1
        return forgeries == 1
    }

    /// Whether a forged reply was dropped for this call. Loop queue.
    var hadForgery: Bool { forgeries > 0 }

    func cancel() {
        state.withLock { $0.cancelled = true }
        finish(.failure(.noReply("the call was cancelled")))
        connection.cancel(self)
    }

    /// Fails the call because its connection closed. Runs on the loop queue.
    func abandon(with reason: DBusError) {
        finish(.failure(reason))
    }
}
