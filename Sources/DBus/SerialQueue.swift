import CDispatch
import Dispatch

/// A dispatch queue with a `sync` at libdispatch's own cost, for the poll
/// thread, which runs each socket readiness and deadline on the loop's
/// queue and waits for it: two or three times a forwarded call.
///
/// `DispatchQueue.sync` made a heap block and a context box for its closure
/// and released both afterwards, in the block runtime and `malloc`;
/// `dispatch_sync_f` takes a C function and a pointer to the caller's
/// stack, so nothing is allocated: the layer forwarding ran 54 400 → 53 300
/// instructions a call (callgrind, whole process). A Swift closure passed
/// on through `withoutActuallyEscaping` instead still had its context
/// allocated, four a call, and saved nothing.
struct SerialQueue: Sendable {
    /// The queue, which keeps libdispatch's object alive.
    let queue: DispatchQueue
    /// libdispatch's `dispatch_queue_t` for `queue`, as a bit pattern (a
    /// pointer is not `Sendable`; a queue is safe to use from any thread).
    private let handle: UInt

    /// `queue` as libdispatch knows it, asked for on the queue itself (where
    /// `dispatch_get_current_queue` names it). Must not run on `queue`.
    init(_ queue: DispatchQueue) {
        self.queue = queue
        handle = queue.sync { UInt(bitPattern: dispatch_get_current_queue()) }
    }

    /// Runs `function` with `context` on the queue and waits for it, as
    /// `DispatchQueue.sync` does. Must not run on the queue (it would wait
    /// for itself).
    func sync<Context>(_ context: inout Context, _ function: @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        withUnsafeMutablePointer(to: &context) { dispatch_sync_f(OpaquePointer(bitPattern: handle)!, $0, function) }
    }
}
