import Dispatch
import Glibc
import Posix

/// Calls `start` again while it fails because its program is open for
/// writing somewhere (`ETXTBSY`), pausing between tries without blocking
/// the caller's thread, for up to `limit`; then its last error stands.
///
/// A program only just written is briefly busy, not broken: Linux refuses
/// to run a file any process holds open for writing, and the holder need
/// not be the writer. A thread of the writing process that forks while the
/// file is open hands its child a copy of the descriptor, which the child
/// holds until it runs its own program (`O_CLOEXEC` closes it only then).
/// That window is the length of somebody else's fork-to-exec: microseconds
/// on an idle machine, milliseconds on a loaded one. Every other error,
/// and a cancelled task, answers at once.
///
///     pid = try await retryingWhileTextFileBusy { () throws(SpawnError) in
///         try spawn(program, arguments: argv, environment: environment)
///     }
public func retryingWhileTextFileBusy<Started>(
    within limit: Duration = .milliseconds(500), _ start: () throws(SpawnError) -> Started
) async throws(SpawnError) -> Started {
    // Plain nanoseconds across the pauses (`nanosecondsClamped`).
    let end = DispatchTime.now().uptimeNanoseconds &+ limit.nanosecondsClamped
    var pause: UInt64 = 1_000_000
    while true {
        do {
            return try start()
        } catch where error.code == ETXTBSY && DispatchTime.now().uptimeNanoseconds &+ pause <= end && !Task.isCancelled {
            try? await Task.sleep(nanoseconds: pause)
            pause = min(pause * 2, 50_000_000)
        }
    }
}
