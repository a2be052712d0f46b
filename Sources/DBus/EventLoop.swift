import CDispatch
import Dispatch
import Glibc
import Synchronization

/// Services one bus socket on one serial queue.
///
/// The socket is polled by a `WatchPoller` thread and read, written and
/// closed on `queue`; the deadlines of the connection's calls share that
/// thread's poll timeout, set for the earliest of them, and are handled on
/// `queue` too. Messages are read whole (`MessageStream`), their headers
/// checked (`WireFormat`), and handed to `onMessage` in arrival order, at
/// the end of the turn that read them.
final class EventLoop: @unchecked Sendable {
    // @unchecked: every stored property below except `queue` is read and written
    // only on `queue` (checked by `assertOnQueue` in debug builds). For the same
    // reason they are `@exclusivity(unchecked)`: on one thread, an access to one
    // of them overlaps another only if a method modifying it calls out to code
    // that touches it again, and none does (the callbacks are read, then called);
    // the run-time check cost about 30 calls into the runtime a forwarded call.
    let queue: DispatchQueue
    /// The socket, while attached.
    @exclusivity(unchecked) private(set) var socket: BusSocket?
    /// Whether the current turn should dispatch before it ends. Touched only on `queue`.
    @exclusivity(unchecked) private var dispatchWanted = false
    /// Called on `queue` for each incoming message, replies included (`Connection.receiveReply` matches them).
    @exclusivity(unchecked) var onMessage: (Message) -> Void = { _ in }
    /// Called on `queue` with the serial of each call whose deadline
    /// (`setCallDeadline`) has passed.
    @exclusivity(unchecked) var onCallDeadline: (UInt32) -> Void = { _ in }
    /// Told, on the queue, when the loop cannot go on (its poll failed): the
    /// connection closes with that error.
    @exclusivity(unchecked) var onFailure: (DBusError) -> Void = { _ in }

    /// Empties the handlers above. They are the connection's and hold it
    /// (a cycle while it is open); once it has closed, or failed to open,
    /// they must let it go, every one of them, or the connection, this
    /// loop and its buffers are never freed. Runs on `queue`, or where
    /// nothing else can run them (a loop that never attached).
    func forgetHandlers() {
        onMessage = { _ in }
        onCallDeadline = { _ in }
        onFailure = { _ in }
    }

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
        serialQueue = SerialQueue(queue)
    }

    /// `queue` for the poll thread's `sync`s (see `SerialQueue`).
    private let serialQueue: SerialQueue

    /// The key as libdispatch knows it: the overlay passes the key object's address.
    private static var queueKeyAddress: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(queueKey).toOpaque()) }

    var isOnQueue: Bool {
        if isInTurn { return true }
        guard let queueMarker else { return DispatchQueue.getSpecific(key: Self.queueKey) == queueID }
        return dispatch_get_specific(Self.queueKeyAddress) == queueMarker
    }

    func assertOnQueue() { assert(isOnQueue, "the bus socket touched off its loop queue") }

    /// Runs `body` on the loop queue and waits for it; runs it inline when already there.
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        return try queue.sync { try turn(body) }
    }

    // MARK: Turns

    /// How deep the queue is in `turn`s. Touched only on `queue`.
    @exclusivity(unchecked) private var turnDepth = 0
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

    /// Starts polling `socket`. Must run on `queue`.
    /// - Throws: when the poll thread cannot be started; nothing is attached then.
    func attach(_ socket: BusSocket, poll: @escaping WatchPoller.Poll = { Glibc.poll($0, $1, $2) }) throws(DBusError) {
        assertOnQueue()
        poller = try WatchPoller(queue: serialQueue, poll: poll, handle: { [weak self] entry, revents in self?.handleReady(entry, revents: revents) },
                                 onDeadline: { [weak self] in self?.turn { self?.fireDueDeadlines() } },
                                 fail: { [weak self] error in
                                     guard let loop = self else { return }
                                     // Disconnected, as the bus leaving is: nothing asked on it was answered.
                                     loop.queue.async { loop.onFailure(.disconnected("the D-Bus poll failed: \(error)")) }
                                 })
        self.socket = socket
        readable = WatchPoller.Entry(fd: socket.descriptor.rawValue, events: Int16(POLLIN))
        poller?.set(readable!, enabled: true)
    }

    /// Stops polling and closes the socket. Must run on `queue`.
    func detach() {
        assertOnQueue()
        guard let socket else { return }
        if let readable { poller?.set(readable, enabled: false) }
        if let writable { poller?.set(writable, enabled: false) }
        poller?.stop()
        poller = nil
        timers = []
        readable = nil
        writable = nil
        socket.close()
        self.socket = nil
        received.removeAll()
        receivedStart = 0
        // Nothing the old socket sent is kept: its partial message, and the
        // names and signatures its messages carried.
        stream = MessageStream()
        recentNames = RecentNames()
        outgoing.removeAll()
        outgoingStart = 0
        writeAtTurnEnd = false
        callDeadlines = [:]
        timerSetFor = nil
    }

    // MARK: Sending

    /// The last serial given to a message sent.
    @exclusivity(unchecked) private var lastSerial: UInt32 = 0
    /// Bytes written to no socket yet, because it was full.
    @exclusivity(unchecked) private var outgoing: [UInt8] = []
    @exclusivity(unchecked) private var outgoingStart = 0

    /// Numbers `message` (unless it came with a serial) and writes it, or
    /// queues what the socket has no room for. Must run on `queue`.
    /// - Returns: its serial.
    /// - Throws: `InvalidArgs` when it cannot be written (too large);
    ///   `Disconnected` when the loop is detached.
    func send(_ message: Message) throws(DBusError) -> UInt32 {
        assertOnQueue()
        guard socket != nil else { throw .disconnected("the connection is closed") }
        var serial = message.serial
        if serial == 0 {
            lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
            serial = lastSerial
        }
        try message.withWireBytes(serial: serial) { bytes in send(bytes) }
        return serial
    }

    /// Writes a message's `bytes`, or queues what the socket has no room for.
    private func send(_ bytes: UnsafeRawBufferPointer) {
        if isInTurn, workWaitsInTurn {
            // Written with the messages the turn's next work sends (see `writeAtTurnEnd`).
            outgoing.append(contentsOf: bytes)
            writeAtTurnEnd = true
        } else if outgoingStart == outgoing.count {
            outgoing.removeAll(keepingCapacity: outgoing.capacity <= MessageStream.keptCapacity)
            outgoingStart = 0
            let written = write(bytes)
            if written < bytes.count { outgoing.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[written...])) }
            waitForRoomIfNeeded()
        } else {
            outgoing.append(contentsOf: bytes)
            // Bytes kept back earlier in this turn go with it; a full socket's wait for room.
            if writable == nil { flushQueued() }
        }
    }

    /// Whether this turn has kept messages back, to write them with those
    /// its later work sends, in one write.
    ///
    /// A message sent in a turn while more of the turn's work waits (a
    /// message read and not yet dispatched, a task's job not yet run) is
    /// kept; the next message sent when nothing waits, or the end of the
    /// turn, writes it and those kept with it. Under load, one read brings
    /// several calls, and each answer or forwarded call was a `sendto` of
    /// its own (two a forwarded call), each waking the bus daemon. A call
    /// that comes alone, as every sequential one does, is written at once,
    /// before the work that follows its reply (the log line).
    @exclusivity(unchecked) private var writeAtTurnEnd = false

    /// How many jobs of the batch the executor is running wait after the
    /// one running; set by the executor. Jobs enqueued meanwhile are not
    /// counted: they run in its next batch, and asking for them would take
    /// its lock at every send.
    @exclusivity(unchecked) var jobsWaiting = 0

    /// Whether work of this turn waits to run after what is running now.
    private var workWaitsInTurn: Bool { receivedStart < received.count || jobsWaiting > 0 }

    /// How many writes the socket has been given: what the messages sent
    /// cost, one system call and one wake-up of the bus daemon each.
    @exclusivity(unchecked) private(set) var writes = 0

    /// Writes as much of `bytes` as the socket takes now; how much it took.
    /// A failure other than a full socket closes the connection (at the end of the turn).
    private func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let socket else { return 0 }
        writes &+= 1
        do {
            return try socket.sendNow(bytes)
        } catch {
            lose(error.message)
            return 0
        }
    }

    /// Writes what is queued, as far as the socket takes it.
    private func flushQueued() {
        guard outgoingStart < outgoing.count else { return }
        outgoingStart += outgoing.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[outgoingStart...])) }
        if outgoingStart == outgoing.count {
            outgoing.removeAll(keepingCapacity: outgoing.capacity <= MessageStream.keptCapacity)
            outgoingStart = 0
        }
        waitForRoomIfNeeded()
    }

    /// Polls for room to write while bytes are queued, and only then.
    private func waitForRoomIfNeeded() {
        let waiting = outgoingStart < outgoing.count
        guard waiting != (writable != nil), let socket, let poller else { return }
        if waiting {
            writable = WatchPoller.Entry(fd: socket.descriptor.rawValue, events: Int16(POLLOUT))
            poller.set(writable!, enabled: true)
        } else if let entry = writable {
            writable = nil
            poller.set(entry, enabled: false)
        }
    }

    /// Whether bytes are waiting to be written.
    var hasQueuedBytes: Bool { outgoingStart < outgoing.count }

    /// Writes what is queued, waiting for room for at most `limit` (the last
    /// replies, on a deliberate close: closing drops them otherwise, and their
    /// callers would wait for replies that never come).
    func flush(within limit: Duration) {
        assertOnQueue()
        let deadline = ContinuousClock.now + limit
        while hasQueuedBytes, let socket {
            flushQueued()
            guard hasQueuedBytes, (try? socket.wait(for: Int16(POLLOUT), before: deadline)) != nil else { return }
        }
    }

    // MARK: Receiving

    /// The bytes read and not yet cut into messages.
    @exclusivity(unchecked) private var stream = MessageStream()
    /// Messages read and not yet dispatched, in order; `receivedStart` is the next.
    @exclusivity(unchecked) private var received: [Message] = []
    @exclusivity(unchecked) private var receivedStart = 0
    /// The names the last messages' headers carried, reused by the next.
    @exclusivity(unchecked) private var recentNames = RecentNames()
    /// Where each read from the socket lands.
    @exclusivity(unchecked) private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// Reads what has come, up to a few chunks a turn so that one busy
    /// peer cannot hold the queue, and cuts it into messages.
    private func readAvailable() {
        guard let socket else { return }
        var ended: String?
        for _ in 0..<16 {
            let read = chunk.withUnsafeMutableBytes { buffer in Result { () throws(DBusError) in try socket.receiveNow(into: buffer) } }
            guard case .success(let count?) = read, count > 0 else {
                switch read {
                case .success(0): ended = "the bus closed the connection"
                case .failure(let error): ended = error.message
                default: break  // nothing more has come
                }
                break
            }
            chunk.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if count < chunk.count { break }
        }
        do {
            while let bytes = try stream.next() { received.append(try Message(received: bytes, recent: &recentNames)) }
        } catch {
            lose("the bus sent a message that is not valid: \(error.message)")
        }
        // What came before the end is still dispatched: the close follows it.
        if let ended { lose(ended) }
    }

    /// The connection cannot go on: it closes with `reason` once this turn ends.
    @exclusivity(unchecked) private var lost = false
    private func lose(_ reason: String) {
        guard !lost else { return }
        lost = true
        queue.async { [self] in onFailure(.disconnected(reason)) }
    }

    // MARK: Dispatching

    /// Asks for a round of dispatching: at the end of the current turn when
    /// there is one (the common case: a message has just been read on the
    /// poll thread, which then dispatches it itself), else in a turn of its own.
    func scheduleDispatch() {
        if isInTurn {
            dispatchWanted = true
            return
        }
        queue.async { [self] in turn { dispatchWanted = true } }
    }

    /// Dispatches messages read, at most a batch of them.
    private func dispatchPending() {
        var budget = 64
        while receivedStart < received.count, budget > 0, socket != nil {
            let message = received[receivedStart]
            receivedStart += 1
            budget -= 1
            onMessage(message)
        }
        if receivedStart == received.count {
            received.removeAll(keepingCapacity: true)
            receivedStart = 0
        } else if socket != nil {
            dispatchWanted = true
        }
    }

    /// The end of the outermost turn: one batch of dispatching if asked for,
    /// then the jobs of the tasks it (or the turn) woke. What is left (more
    /// messages than a batch) gets a turn of its own, so that the socket and
    /// cross-thread work are serviced between batches.
    private func endTurn() {
        if dispatchWanted {
            dispatchWanted = false
            dispatchPending()
        }
        executor?.runJobs()
        if writeAtTurnEnd {
            writeAtTurnEnd = false
            if writable == nil { flushQueued() }
        }
        if dispatchWanted {
            dispatchWanted = false
            queue.async { [self] in turn { dispatchWanted = true } }
        }
    }

    // MARK: Watches

    /// Waits on the socket; created by `attach`, stopped by `detach`.
    @exclusivity(unchecked) private var poller: WatchPoller?
    /// The socket's read watch, always on while attached.
    @exclusivity(unchecked) private var readable: WatchPoller.Entry?
    /// Its write watch, on only while bytes are queued.
    @exclusivity(unchecked) private var writable: WatchPoller.Entry?

    /// Handles a ready watch on the queue, unless it was removed after the
    /// poll thread saw it.
    private func handleReady(_ entry: WatchPoller.Entry, revents: Int16) {
        turn {
            guard socket != nil, poller?.isEnabled(entry) == true else { return }
            if entry === writable {
                flushQueued()
                return
            }
            readAvailable()
            // Dispatch what was just read where it was read, at the end of this turn.
            dispatchWanted = true
        }
    }

    // MARK: Deadlines

    /// The deadlines of the connection's calls awaiting replies, by serial.
    /// They share the poll thread's one deadline, set for the earliest of
    /// them: nothing is made and destroyed per call.
    @exclusivity(unchecked) private var callDeadlines: [UInt32: DispatchTime] = [:]
    @exclusivity(unchecked) private var timerSetFor: DispatchTime?

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

    /// Work to run on the queue at a moment (`run(at:_:)`), in the order asked for.
    @exclusivity(unchecked) private var timers: [(deadline: DispatchTime, work: () -> Void)] = []

    /// Runs `work` in a turn on `queue` at `deadline` (or soon after), on the
    /// poll thread's one deadline as call timeouts are. Asked for in a turn
    /// the poll thread runs (a message being handled), it costs no wake-up:
    /// the thread reads its deadline again before it next waits. Runs on `queue`.
    func run(at deadline: DispatchTime, _ work: @escaping () -> Void) {
        assertOnQueue()
        timers.append((deadline, work))
        setTimer(for: deadline)
    }

    /// Sets the poll thread's deadline for the earliest call's or timer's,
    /// unless it is already set no later. It is never moved later: one that
    /// comes early finds nothing due and is set again. Moving it wakes the
    /// poll thread, and a call that comes and goes within its timeout (nearly
    /// every call) would move it twice.
    private func rescheduleTimer() {
        var found: DispatchTime?
        for deadline in callDeadlines.values where found.map({ deadline < $0 }) ?? true { found = deadline }
        for timer in timers where found.map({ timer.deadline < $0 }) ?? true { found = timer.deadline }
        if let earliest = found { setTimer(for: earliest) }
    }

    /// Sets the poll thread's deadline to `deadline`, unless it is already set no later.
    private func setTimer(for deadline: DispatchTime) {
        if let timerSetFor, timerSetFor <= deadline { return }
        timerSetFor = deadline
        poller?.setDeadline(deadline)
    }

    /// Tells `onCallDeadline` of every call whose deadline passed, runs the
    /// timers whose moment came, then re-sets the timer.
    private func fireDueDeadlines() {
        timerSetFor = nil
        let now = DispatchTime.now()
        // The serials first, and only when one is due: the deadline fires
        // for the log's batch timer far more often than a call times out,
        // and a filtered copy of the dictionary was an allocation each time.
        if callDeadlines.values.contains(where: { $0 <= now }) {
            let due = callDeadlines.compactMap { $0.value <= now ? $0.key : nil }
            for serial in due where callDeadlines.removeValue(forKey: serial) != nil { onCallDeadline(serial) }
        }
        if timers.contains(where: { $0.deadline <= now }) {
            let ready = timers.filter { $0.deadline <= now }
            timers.removeAll { $0.deadline <= now }
            for timer in ready { timer.work() }
        }
        rescheduleTimer()
    }
}
