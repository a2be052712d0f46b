import Glibc

/// An open file descriptor: reads and writes that retry on `EINTR`, finish
/// short writes, and throw `Errno` instead of returning -1. It does not own
/// the descriptor: closing is the caller's.
public struct FileDescriptor: Sendable, Equatable {
    public let rawValue: Int32

    /// The descriptor numbered `rawValue`, which the caller owns.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Descriptor 0.
    public static let standardInput = FileDescriptor(0)
    /// Descriptor 1.
    public static let standardOutput = FileDescriptor(1)
    /// Descriptor 2.
    public static let standardError = FileDescriptor(2)

    /// Reads at most `buffer.count` bytes; 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let count = retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        guard count >= 0 else { throw .current }
        return count
    }

    /// Reads into `buffer` (its whole size); returns how many bytes came, 0 at the end.
    public func read(into buffer: inout [UInt8]) throws(Errno) -> Int {
        let count = buffer.withUnsafeMutableBytes { bytes in retryingOnInterrupt { Glibc.read(rawValue, bytes.baseAddress, bytes.count) } }
        guard count >= 0 else { throw .current }
        return count
    }

    /// Writes every byte of `bytes`, however many calls it takes.
    /// - Throws: the error of the write that failed; a write that took
    ///   nothing (a full disk reported as 0) is `ENOSPC`.
    public func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        var rest = Array(bytes)[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { chunk in retryingOnInterrupt { Glibc.write(rawValue, chunk.baseAddress, chunk.count) } }
            guard written > 0 else { throw written == 0 ? Errno(rawValue: ENOSPC) : .current }
            rest = rest.dropFirst(written)
        }
    }
}
