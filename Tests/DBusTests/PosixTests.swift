import Glibc
import Posix
import Testing

/// The system-call layer: whole writes, reads to the end, errors as `Errno`.
@Suite struct PosixTests {
    /// Whole nanoseconds, saturating at both ends rather than wrapping.
    @Test func durationsAsNanoseconds() {
        #expect(Duration.milliseconds(1500).nanosecondsClamped == 1_500_000_000)
        #expect(Duration.nanoseconds(7).nanosecondsClamped == 7)
        #expect(Duration.zero.nanosecondsClamped == 0)
        #expect(Duration.seconds(-3).nanosecondsClamped == 0)
        #expect(Duration.seconds(Int64.max).nanosecondsClamped == .max)
        #expect(Duration.seconds(18_446_744_073).nanosecondsClamped == 18_446_744_073_000_000_000)
        #expect((Duration.seconds(18_446_744_073) + .milliseconds(710)).nanosecondsClamped == .max)
    }

    @Test func everyByteIsWrittenAndReadBack() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { close($0) } }
        let bytes = Array(repeating: UInt8(ascii: "x"), count: 40_000)  // more than one write may take at once on a full pipe
        let writer = Thread { try? FileDescriptor(fds[1]).writeAll(bytes); close(fds[1]) }
        var read: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let count = try? FileDescriptor(fds[0]).read(into: &buffer), count > 0 { read += buffer[..<count] }
        writer.join()
        fds[1] = -1
        #expect(read == bytes)
    }

    @Test func failuresAreErrnoWithTheirSentence() {
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(throws: Errno(rawValue: EBADF)) { _ = try FileDescriptor(-1).read(into: &buffer) }
        #expect(Errno(rawValue: ENOENT).description == "No such file or directory")
        errno = 0
        #expect(retryingOnInterrupt { Int32(7) } == 7)
    }
}

/// A pthread for the test's writer, so that the read loop runs at the same time.
final class Thread: @unchecked Sendable {
    // @unchecked: `body` runs once on the new thread; `thread` is only joined from the creator.
    private var thread = pthread_t()
    private let body: () -> Void
    init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            let me = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
            me.body()
            return nil
        }, context)
    }
    func join() { pthread_join(thread, nil) }
}
