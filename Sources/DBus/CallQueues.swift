import Synchronization

/// A deferred method call waiting for its turn: the method, its decoded
/// arguments and the message to answer.
struct DeferredCall: Sendable {
    let method: ExportedMethod
    let call: MethodCall
    let message: Message
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

    private var running: [String: Int] = [:]
    private var waiting: [String: [DeferredCall]] = [:]
    /// Where each sender's queue starts: popping from the front of an array
    /// is O(n), so the queue is consumed by index and compacted when empty.
    private var heads: [String: Int] = [:]

    mutating func admit(_ call: DeferredCall, from sender: String) -> Admission {
        if running[sender, default: 0] < Self.maximumRunning {
            running[sender, default: 0] += 1
            return .start
        }
        let queued = waiting[sender, default: []].count - heads[sender, default: 0]
        guard queued < Self.maximumQueued else { return .refused }
        waiting[sender, default: []].append(call)
        return .queued
    }

    /// Records that one of `sender`'s calls finished; returns its next one to
    /// start, if any (which then counts as running).
    mutating func finished(from sender: String) -> DeferredCall? {
        let head = heads[sender, default: 0]
        if let queue = waiting[sender], head < queue.count {
            heads[sender] = head + 1
            if head + 1 == queue.count {
                waiting[sender] = nil
                heads[sender] = nil
            }
            return queue[head]
        }
        running[sender, default: 1] -= 1
        if running[sender] == 0 { running[sender] = nil }
        return nil
    }
}
