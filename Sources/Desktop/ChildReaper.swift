import Dispatch
import Glibc
import Synchronization

/// Reaps the processes this process launched, so none lingers as a zombie,
/// without waiting for (and stealing) anybody else's children.
public final class ChildReaper: @unchecked Sendable {
    // @unchecked: `source` is set in init and cancelled in deinit only;
    // `children` is a Mutex.
    private let children = Mutex<Set<pid_t>>([])
    private var source: (any DispatchSourceSignal)?

    /// A reaper that starts watching `SIGCHLD` now.
    public init() {
        let source = DispatchSource.makeSignalSource(signal: SIGCHLD, queue: .global())
        source.setEventHandler { [weak self] in self?.reap() }
        source.resume()
        self.source = source
    }

    deinit { source?.cancel() }

    /// Reaps `pid` once it exits.
    public func adopt(_ pid: pid_t) {
        children.withLock { _ = $0.insert(pid) }
        reap()  // it may already have exited before we listened
    }

    /// The launched processes not yet reaped.
    public var running: Set<pid_t> { children.withLock { $0 } }

    private func reap() {
        children.withLock { pids in
            for pid in pids {
                var status: Int32 = 0
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid || (result < 0 && errno == ECHILD) { pids.remove(pid) }
            }
        }
    }
}
