import Glibc

/// A system call's failure, as `errno` reported it.
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    /// The error `rawValue` names.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, now.
    public static var current: Errno { Errno(rawValue: errno) }

    /// `EINTR`: a signal interrupted the call; it is retried.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EWOULDBLOCK` (`EAGAIN`): nothing to read or room to write right now.
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)

    /// The C library's sentence for it ("No such file or directory").
    public var description: String { String(cString: strerror(rawValue)) }
}

/// Runs `call` again for as long as it fails with `EINTR` (a signal
/// arrived while it waited), and returns its last result: the one place
/// that retries, so that no caller forgets to or spins on another error.
@inlinable
public func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result < 0 && errno == EINTR { continue }
        return result
    }
}
