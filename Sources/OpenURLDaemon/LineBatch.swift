import DBus
import Dispatch
import Glibc
import Posix
import Synchronization

/// Log lines written together: the line of every URL opened (logged
/// `batched`) is kept for about `delay` (the loop's poll waits in whole
/// milliseconds) and written with those that came meanwhile, in one write.
///
/// Why: a method's line is written after its reply is sent, and the reply
/// wakes the bus daemon on this CPU, where it waited for the write (3 to 5
/// µs: the line built, a `writev`, the file's journal) before it could pass
/// the reply on. Against the same daemon writing no line, that was 4 % of
/// an in-daemon refusal's round trip with client and daemon apart. Kept
/// back, the line is written once the loop has let the bus daemon run.
///
/// What it costs: a URL's line reaches the journal a millisecond or two
/// later, and a daemon killed (`SIGKILL`) or crashing loses the lines of
/// those last milliseconds. Every other line (start-up, reloads, warnings,
/// errors) is written at once, after every line kept before it, so that
/// order holds; so is everything once batching stops (the connection
/// closed, the daemon exiting).
public final class LineBatch: Sendable {
    /// How long a line may be kept.
    public static let delay = DispatchTimeInterval.milliseconds(1)
    /// Lines kept past this many bytes are written at once.
    public static let capacity = 16 * 1024

    private struct State {
        var pending: [UInt8] = []
        /// Runs the batch's write at a moment on the bus loop; `nil`: lines are written at once.
        var timer: Timer?
        var writeAsked = false
    }
    private let state = Mutex(State())
    private let descriptor: Int32

    /// A batch writing to `descriptor`; it writes every line at once until `keepLines(on:)`.
    public init(descriptor: Int32 = 2) { self.descriptor = descriptor }

    /// What runs the batch's write at a moment.
    typealias Timer = @Sendable (DispatchTime, @escaping @Sendable () -> Void) -> Void

    /// Keeps lines from now on, written by a timer on `connection`'s loop;
    /// stops keeping them (writing those kept) when the connection closes.
    ///
    /// The batch holds `connection` until then, or until `stopKeeping()`:
    /// held weakly, the connection would get a side table, and every retain
    /// and release of it, several on each call it answers, would take the
    /// runtime's slow path.
    public func keepLines(on connection: Connection) {
        keepLines(timer: { deadline, work in connection.run(at: deadline, work) })
        connection.onDisconnect { [self] _ in stopKeeping() }
    }

    /// Keeps lines from now on, written when `timer` runs the write it is given.
    func keepLines(timer: @escaping Timer) {
        state.withLock { $0.timer = timer }
    }

    /// Writes the lines kept, and every line at once from now on.
    public func stopKeeping() {
        state.withLock { state in
            state.timer = nil
            state.writeAsked = false
            write(&state.pending)
        }
    }

    /// Writes the lines kept.
    func writeKept() {
        state.withLock { state in
            state.writeAsked = false
            write(&state.pending)
        }
    }

    /// Adds one line (`prefix`, `body` and a newline): kept, or with
    /// `urgent` (or nothing to keep it by) written at once with those kept.
    func add(_ prefix: StaticString, _ body: UnsafeBufferPointer<UInt8>, urgent: Bool) {
        let timer = state.withLock { state -> Timer? in
            guard !urgent, let timer = state.timer, state.pending.count + prefix.utf8CodeUnitCount + body.count + 1 <= Self.capacity else {
                if state.pending.isEmpty {
                    Self.write(prefix, body, to: descriptor)
                } else {
                    append(prefix, body, to: &state.pending)
                    write(&state.pending)
                }
                return nil
            }
            append(prefix, body, to: &state.pending)
            guard !state.writeAsked else { return nil }
            state.writeAsked = true
            return timer
        }
        // Outside the lock: the timer may wait for the loop's queue, whose
        // thread may be waiting for this lock to add a line of its own.
        timer?(.now() + Self.delay) { [self] in writeKept() }
    }

    private func append(_ prefix: StaticString, _ body: UnsafeBufferPointer<UInt8>, to pending: inout [UInt8]) {
        pending.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        pending.append(contentsOf: body)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Writes `pending` and empties it. A write that fails loses the lines,
    /// as a line written at once would be lost.
    private func write(_ pending: inout [UInt8]) {
        guard !pending.isEmpty else { return }
        try? FileDescriptor(descriptor).writeAll(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// One line in one `writev` of prefix, text and newline: nothing is copied to join them.
    static func write(_ prefix: StaticString, _ body: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
        let newline: StaticString = "\n"
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 3) { parts in
            parts[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: prefix.utf8Start), iov_len: prefix.utf8CodeUnitCount)
            parts[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
            parts[2] = iovec(iov_base: UnsafeMutableRawPointer(mutating: newline.utf8Start), iov_len: 1)
            _ = writev(descriptor, parts.baseAddress, 3)
        }
    }
}
