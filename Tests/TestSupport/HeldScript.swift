import Foundation
import Spawn
import Synchronization

/// A script written by this process with its descriptor still open: what
/// another thread's child holds between its fork and its exec, so that
/// running the script fails with ETXTBSY until `letGo()`.
public final class HeldScript: Sendable {
    /// Where the script is.
    public let path: String
    private let descriptor: Mutex<Int32>
    private let tree: XDGTree  // removed with the script

    /// Writes `content` to `bin/NAME` in `tree`, executable, and keeps it open.
    public init(in tree: XDGTree, name: String = "held", content: String = "#!/bin/sh\nexit 0\n") throws {
        self.tree = tree
        path = tree.root + "/bin/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        descriptor = Mutex(fd)
        guard fd >= 0 else { throw FixtureError("cannot create \(path)") }
        let bytes = Array(content.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw FixtureError("cannot write \(path)") }
    }

    /// Runs the script with no argument and no environment.
    public func start() throws(SpawnError) -> pid_t {
        try spawn(path, arguments: [(path as NSString).lastPathComponent], environment: [])
    }

    /// Closes the descriptor, once.
    public func letGo() {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    deinit { letGo() }
}
