import CPosix
import Glibc

/// A Linux `eventfd`: a counter one thread bumps to wake another that polls
/// it. One descriptor where a pipe takes two, and it never fills: a bump on
/// a counter already set still means "wake up". Closing is the owner's.
public struct EventCounter: Sendable, Equatable {
    /// The descriptor to poll for `POLLIN`.
    public let descriptor: FileDescriptor

    /// A new counter at zero, close-on-exec and non-blocking.
    /// - Throws: the `Errno` of `eventfd` (descriptors or memory exhausted).
    public init() throws(Errno) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard fd >= 0 else { throw .current }
        descriptor = FileDescriptor(fd)
    }

    /// Wakes the poller.
    public func signal() { _ = retryingOnInterrupt { eventfd_write(descriptor.rawValue, 1) } }

    /// Resets the counter, after a poll saw it set.
    public func drain() {
        var count: eventfd_t = 0
        _ = retryingOnInterrupt { eventfd_read(descriptor.rawValue, &count) }
    }

    /// Closes the descriptor.
    public func close() { _ = Glibc.close(descriptor.rawValue) }
}
