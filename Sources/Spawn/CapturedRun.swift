import CSpawn
import Dispatch
import Glibc
import Posix
import Synchronization

/// What a finished program wrote to standard output and how it ended.
public struct CapturedRun: Sendable {
    /// The exit status, or `nil` when a signal ended it (e.g. the deadline's SIGKILL).
    public let status: Int32?
    /// Standard output, up to the limit.
    public let output: [UInt8]
    /// Whether the deadline ended it.
    public let timedOut: Bool
}

/// Runs a program (no shell) and collects up to `limit` bytes of its standard
/// output, killing it at `deadline`. Standard input is `input` (/dev/null
/// when empty), standard error is inherited. Blocking work happens on a
/// Dispatch worker, never on the caller's task.
/// - Throws: `SpawnError` when it cannot be started (a program only just
///   written, and so briefly busy, is waited for: `retryingWhileTextFileBusy`).
public func runCapturingOutput(
    _ program: String, arguments: [String], environment: [String], input: [UInt8] = [], deadline: Duration, limit: Int = 65536
) async throws(SpawnError) -> CapturedRun {
    var fds: [Int32] = [-1, -1]
    var inputFDs: [Int32] = [-1, -1]
    guard cspawn_pipe(&fds) == 0 else { throw SpawnError(program: program, code: errno) }
    guard input.isEmpty || cspawn_pipe(&inputFDs) == 0 else {
        let code = errno
        close(fds[0])
        close(fds[1])
        throw SpawnError(program: program, code: code)
    }
    // The deadline counts from here: waiting out a busy program spends it.
    // (Plain nanoseconds: `nanosecondsClamped`.)
    let deadlineNanoseconds = deadline.nanosecondsClamped
    let started = DispatchTime.now().uptimeNanoseconds
    let pid: pid_t
    do {
        let stdin: StandardStream = input.isEmpty ? .null : .descriptor(inputFDs[0])
        pid = try await retryingWhileTextFileBusy(within: min(deadline, .milliseconds(500))) { () throws(SpawnError) in
            try spawn(program, arguments: arguments, environment: environment, stdin: stdin, stdout: .descriptor(fds[1]), stderr: .inherit)
        }
    } catch {
        (fds + inputFDs).filter { $0 >= 0 }.forEach { close($0) }
        throw error
    }
    close(fds[1])
    if !input.isEmpty {
        close(inputFDs[0])
        let writer = inputFDs[1]
        // Written apart from the reading, so that a child that writes before it has read everything cannot deadlock us.
        DispatchQueue.global().async {
            // A child that stops reading (it exited) ends the writing; its output still counts.
            try? FileDescriptor(writer).writeAll(input)
            close(writer)
        }
    }
    let reader = fds[0]
    // Once the child is reaped its PID may be reused: the deadline may kill
    // only while `finished` is false, which is set before reaping.
    let state = Mutex((finished: false, killed: false))
    let spent = DispatchTime.now().uptimeNanoseconds &- started
    let left = deadlineNanoseconds > spent ? deadlineNanoseconds - spent : 0
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: left))) {
        state.withLock { state in
            guard !state.finished else { return }
            state.killed = true
            kill(pid, SIGKILL)
        }
    }
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            var output: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let n = try? FileDescriptor(reader).read(into: &buffer), n > 0 {
                if output.count < limit { output += buffer[..<min(n, limit - output.count)] }
            }
            close(reader)
            // Wait for the exit without reaping (WNOWAIT): the PID stays ours
            // until `finished` is set, so the deadline can never hit a reused PID.
            var info = siginfo_t()
            _ = retryingOnInterrupt { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
            let killed = state.withLock { state in
                state.finished = true
                return state.killed
            }
            var status: Int32 = 0
            _ = retryingOnInterrupt { waitpid(pid, &status, 0) }
            let exited = status & 0x7F == 0
            continuation.resume(returning: CapturedRun(
                status: exited ? (status >> 8) & 0xFF : nil, output: output, timedOut: killed))
        }
    }
}
