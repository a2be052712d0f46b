import Synchronization

/// A deferred method call waiting for its turn: the method, the message to
/// answer and the work that answers it.
struct DeferredCall: Sendable {
    let method: ExportedMethod
    let message: Message
    let work: Work

    /// What runs in the task.
    enum Work: Sendable {
        /// A `deferred` method's handler, with the call's arguments.
        case handler(@Sendable (MethodCall) async throws(DBusError) -> MethodAnswer, MethodCall)
        /// What a `staged` method's loop-queue part left to do.
        case rest(@Sendable () async throws(DBusError) -> MethodAnswer)

        nonisolated(nonsending) func answer() async throws(DBusError) -> MethodAnswer {
            switch self {
            case .handler(let handler, let call): try await handler(call)
            case .rest(let rest): try await rest()
            }
        }
    }
}

/// A deferred call started, with its number in `callsInFlight` and its sender.
struct CallJob: Sendable {
    let id: UInt64
    let deferred: DeferredCall
    let sender: String
}

/// A task that runs deferred calls one after another (`Connection.work`).
/// It learns its own handle once made, for `callsInFlight` while it is idle.
final class CallWorker: Sendable {
    let task = Mutex<Task<Void, Never>?>(nil)
    /// The call the worker starts with, until it takes it: not captured by
    /// the task's closure, which lives as long as the task, idle or not.
    let first: Mutex<CallJob?>

    init(first: CallJob) { self.first = Mutex(first) }

    /// Idle workers kept for the next calls; more end when their call does.
    static let keptIdle = 4
}

/// A worker waiting for a call, and its task (cancelled at shutdown like a running call's).
struct IdleCallWorker: Sendable {
    let continuation: UnsafeContinuation<CallJob?, Never>
    let task: Task<Void, Never>
}

/// Each sender's deferred calls: how many run, and the rest in arrival order.
///
/// The bound is per sender, so one client cannot hold the executor (or, in
/// the daemon, the bus's pending-reply quota through handler calls) for
/// everyone else; and the waiting queue is bounded too, so a client that
/// never reads its answers cannot grow the daemon's memory without end.
struct CallQueues {
    /// Calls one sender may have running at once.
    static let maximumRunning = 32
    /// Calls one sender may have waiting behind those; more are refused.
    static let maximumQueued = 1024

    enum Admission { case start, queued, refused }

    /// One sender's calls: how many run, and those waiting behind them.
    private struct Sender {
        var running = 0
        var waiting: [DeferredCall] = []
        /// Where the queue starts: popping from the front of an array is
        /// O(n), so the queue is consumed by index and compacted when empty.
        var head = 0

        mutating func admit(_ call: DeferredCall) -> Admission {
            if running < CallQueues.maximumRunning {
                running += 1
                return .start
            }
            guard waiting.count - head < CallQueues.maximumQueued else { return .refused }
            waiting.append(call)
            return .queued
        }

        /// Takes the next waiting call, if any.
        mutating func next() -> DeferredCall? {
            guard head < waiting.count else { return nil }
            defer {
                head += 1
                if head == waiting.count { (waiting, head) = ([], 0) }
            }
            return waiting[head]
        }
    }

    /// Every sender with a call running or waiting. The sender's name is
    /// looked up once for each call admitted and once for each call
    /// finished; the rest goes by the dictionary's index.
    private var senders: [String: Sender] = [:]

    mutating func admit(_ call: DeferredCall, from sender: String) -> Admission {
        // One lookup, which adds the sender when it is new.
        senders[sender, default: Sender()].admit(call)
    }

    /// Records that one of `sender`'s calls finished; returns its next one to
    /// start, if any (which then counts as running).
    mutating func finished(from sender: String) -> DeferredCall? {
        guard let index = senders.index(forKey: sender) else { return nil }
        if let next = senders.values[index].next() { return next }
        senders.values[index].running -= 1
        if senders.values[index].running == 0 { senders.remove(at: index) }
        return nil
    }
}
