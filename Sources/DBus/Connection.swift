import Dispatch
import Glibc
import Synchronization

/// A private connection to a message bus, serviced by its own event loop.
///
/// Make one with `Connection.connect(to:)` or `Connection.session()`, use it
/// from any thread or task, and `close()` it when done: an open connection
/// stays alive until then (or until the bus drops it), even without references.
/// Incoming method calls and signals are handled on the connection's loop
/// queue, in arrival order.
public final class Connection: Sendable {
    let loop: EventLoop
    let state: Mutex<ConnectionState>
    /// Replies dropped because they came from someone the call was not sent to.
    let forgedReplies = Atomic<Int>(0)

    private init(loop: EventLoop) {
        self.loop = loop
        self.state = Mutex(ConnectionState())
    }

    /// Connects to the bus at `address` and registers with it (`Hello`).
    ///
    /// - Parameters:
    ///   - address: a D-Bus address such as `unix:path=/run/user/1000/bus`.
    ///   - timeout: how long registration may take.
    /// - Throws: `BadAddress` for an address this module cannot reach; the
    ///   connect error as libdbus named it (`FileNotFound`, `NoServer`,
    ///   `AccessDenied`); `AuthFailed`; `NoReply` when `timeout` passes; the bus's error.
    public static func connect(to address: String, timeout: Duration = .seconds(25)) async throws(DBusError)
        -> Connection
    {
        try await connect(to: address, timeout: timeout, poll: { Glibc.poll($0, $1, $2) })
    }

    /// `connect(to:timeout:)` with the poll the loop waits with (tests make it fail).
    static func connect(to address: String, timeout: Duration, poll: @escaping WatchPoller.Poll) async throws(DBusError) -> Connection {
        let deadline = ContinuousClock.now + timeout
        let busAddress = try BusAddress(address)
        // Connecting and authenticating wait on the socket (well under a
        // millisecond on a local bus; at most until the deadline on one
        // that does not answer): on a thread of their own, not the caller's
        // task's, which may be one of the few the concurrency runtime has.
        let connected: Result<BusSocket, DBusError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(DBusError) in try BusSocket.connect(to: busAddress, before: deadline) })
            }
        }
        let socket = try connected.get()

        let connection = Connection(loop: EventLoop(label: "openurld.dbus"))
        // A deliberate cycle: an open connection stays alive, and keeps
        // serving its exported objects, until `close()` or the bus drops it,
        // even when nobody holds it any more. `teardown` breaks the cycle.
        connection.loop.onMessage = { connection.receive($0) }
        connection.loop.onFailure = { connection.teardown($0) }
        connection.loop.onCallDeadline = { connection.callTimedOut($0) }
        let attached = connection.loop.queue.sync { Result { () throws(DBusError) in try connection.loop.attach(socket, poll: poll) } }
        if case .failure(let error) = attached {
            connection.loop.forgetHandlers()
            socket.close()
            throw error
        }
        do {
            let hello = try Message.methodCall(
                destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "Hello")
            let name = try await connection.call(hello, timeout: deadline - ContinuousClock.now).decode(String.self)
            connection.state.withLock { $0.uniqueName = BusName(trusted: name) }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`, or to
    /// `$XDG_RUNTIME_DIR/bus` when that is unset, as libdbus and GLib do.
    /// - Throws: `Disconnected` when neither is available.
    public static func session(environment: [String: String]) async throws(DBusError) -> Connection {
        guard let address = sessionBusAddress(environment: environment) else {
            throw .disconnected("no session bus: DBUS_SESSION_BUS_ADDRESS is unset and XDG_RUNTIME_DIR has no 'bus' socket")
        }
        return try await connect(to: address)
    }

    /// The unique name the bus gave this connection, e.g. `:1.42`.
    public var uniqueName: BusName { state.withLock { $0.uniqueName } ?? BusName(trusted: ":0.0") }

    /// How many replies were dropped because they did not come from the peer
    /// the call may be answered by (forged answers; see `ReplyAuthority`).
    public var forgedReplyCount: Int { forgedReplies.load(ordering: .relaxed) }

    /// Runs `handler` on the loop queue for each reply dropped because it did
    /// not come from anyone the call may be answered by: once per call that a
    /// forgery reached first (later forgeries for the same call are dropped
    /// without a word). Replaces an earlier handler.
    public func onDroppedReply(_ handler: @escaping @Sendable (DroppedReply) -> Void) {
        state.withLock { $0.droppedReplyHandler = handler }
    }

    /// Tells the dropped-reply handler about `reply`. Loop queue.
    func reportDroppedReply(_ reply: Message, for pending: PendingCall) {
        guard let handler = state.withLock({ $0.droppedReplyHandler }) else { return }
        let destination: String = switch pending.authority.destination {
        case .bus: BusName.bus.rawValue
        case .unique(let name), .wellKnown(let name): name
        }
        handler(DroppedReply(sender: reply.sender, destination: BusName(trusted: destination), member: pending.member))
    }

    /// How many of one sender's calls to `async` methods run at once; more
    /// wait, in order, up to `maximumCallsWaitingPerSender`, and beyond that
    /// are answered `LimitsExceeded`. See `CallQueues`.
    public static let maximumCallsRunningPerSender = CallQueues.maximumRunning
    /// How many of one sender's calls to `async` methods may wait for their turn.
    public static let maximumCallsWaitingPerSender = CallQueues.maximumQueued

    /// Whether the connection is still open.
    public var isConnected: Bool { state.withLock { $0.isOpen } }

    /// Sends a message without waiting for a reply.
    public func send(_ message: Message) {
        // On the loop (a reply from an immediate method) it runs inline; from
        // elsewhere, `sync` runs it on the calling thread while the loop is
        // idle (libdispatch's sync does not switch threads then): a reply
        // from a task costs no hop.
        loop.sync { _ = try? loop.send(message) }
    }

    /// Runs `work` on the loop queue at `deadline`, or soon after: a timer on
    /// the loop's one deadline, which the call timeouts share. Asked for
    /// while the loop handles a message (a method's `afterReply`), it costs
    /// no system call. `work` does not run once the connection has closed.
    public func run(at deadline: DispatchTime, _ work: @escaping @Sendable () -> Void) {
        loop.sync { loop.run(at: deadline, work) }
    }

    /// Runs `handler` once, on the loop queue, when the connection closes for any
    /// reason. Runs it at once when the connection is already closed.
    public func onDisconnect(_ handler: @escaping @Sendable (DBusError) -> Void) {
        let closedWith: DBusError? = state.withLock { state in
            if let reason = state.closeReason { return reason }
            state.disconnectHandlers.append(handler)
            return nil
        }
        if let closedWith { loop.queue.async { handler(closedWith) } }
    }

    /// Suspends until the connection closes, returning why.
    public func disconnected() async -> DBusError {
        await withCheckedContinuation { continuation in
            onDisconnect { continuation.resume(returning: $0) }
        }
    }

    /// Closes the connection. Calls in flight fail with `Disconnected`; every
    /// registered disconnect handler runs. Closing twice does nothing.
    ///
    /// From a method or signal handler (on the loop queue, inside the loop's
    /// dispatch) the close happens right after the handler returns; from
    /// anywhere else, before `close()` returns.
    public func close() {
        let reason = DBusError.disconnected("the connection was closed")
        if loop.isOnQueue {
            loop.queue.async { [self] in teardown(reason) }
        } else {
            loop.queue.sync { teardown(reason) }
        }
    }

    /// Handles one incoming message on the loop queue.
    private func receive(_ message: Message) {
        switch message.kind {
        case .methodCall:
            handleMethodCall(message)
        case .signal:
            // The bus leaving is the socket's end (`EventLoop`); a signal on
            // the bus's local interface never arrives (`WireFormat` refuses it).
            noteOwnerChange(message)
            deliverSignal(message)
        case .methodReturn, .error:
            receiveReply(message)
        }
    }

    /// Closes the socket and fails what waits on it. Runs on the loop queue.
    private func teardown(_ reason: DBusError) {
        loop.assertOnQueue()
        guard loop.socket != nil else { return }
        let (handlers, pending) = state.withLock { state in
            state.isOpen = false
            state.closeReason = reason
            defer {
                state.disconnectHandlers = []
                state.calls = [:]
                state.ownerWatches = [:]
                state.awaiting = [:]
                state.abandoned = [:]
                state.callQueues = CallQueues()  // queued calls are never started on a closed connection
                state.subscriptions = [:]
                // No call comes any more: what would have answered one goes,
                // and so do the cycles it made (a method holding its object,
                // which holds the connection).
                state.objects = [:]
                state.lastRoutedObject = nil
                state.droppedReplyHandler = nil
            }
            return (state.disconnectHandlers, Array(state.calls.values))
        }
        releaseIdleCallWorkers()
        // The last replies, written out before the socket closes: closing
        // drops them otherwise, and their callers would wait for replies that
        // never come.
        loop.flush(within: .seconds(1))
        loop.detach()
        loop.forgetHandlers()
        for call in pending { call.abandon(with: reason) }
        for handler in handlers { handler(reason) }
    }
}

/// A reply that was dropped: it did not come from anyone the call may be answered by.
public struct DroppedReply: Sendable, Equatable {
    /// Who sent it (a unique name the bus vouches for).
    public let sender: BusName?
    /// Where the call went.
    public let destination: BusName
    /// The method called.
    public let member: MemberName?
}

/// Everything about a connection that other threads may touch.
struct ConnectionState {
    var isOpen = true
    var closeReason: DBusError?
    var uniqueName: BusName?
    var disconnectHandlers: [@Sendable (DBusError) -> Void] = []
    /// Calls sent and waiting for their replies, by serial (`Connection+Calls`).
    var calls: [UInt32: PendingCall] = [:]
    var droppedReplyHandler: (@Sendable (DroppedReply) -> Void)?
    /// Calls the bus still counts, by unique destination (`Connection+Awaiting`).
    var awaiting: [String: Int] = [:]
    /// Calls given up on whose answer has not come, by serial: their destination.
    var abandoned: [UInt32: String] = [:]
    /// The owners of the well-known names that calls are waiting on.
    var ownerWatches: [String: OwnerWatch] = [:]
    /// Deferred method calls running and waiting, by sender.
    var callQueues = CallQueues()
    /// The deferred calls running now, by a number of their own.
    var callsInFlight: [UInt64: Task<Void, Never>] = [:]
    /// Worker tasks waiting for the next deferred call (`Connection+Objects`).
    var idleCallWorkers: [IdleCallWorker] = []
    /// Where deferred calls run, when not on the global executor (`answerCallsOnLoop`).
    var loopExecutor: LoopExecutor?
    var nextCallID: UInt64 = 0
    var objects: [ObjectPath: [ExportedInterface]] = [:]
    /// The object the last call was routed to (`Connection+Objects`);
    /// forgotten whenever `objects` changes.
    var lastRoutedObject: (path: ObjectPath, interfaces: [ExportedInterface])?
    var subscriptions: [UInt64: SignalSubscription.Entry] = [:]
    var nextSubscriptionID: UInt64 = 1
}

/// The session bus address per the D-Bus specification and libdbus's fallback.
func sessionBusAddress(environment: [String: String]) -> String? {
    if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
        let path = runtime + "/bus"
        if access(path, F_OK) == 0 { return "unix:path=" + path }
    }
    return nil
}
