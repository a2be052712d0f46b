import Foundation
import Spawn

/// A headless Wayland compositor (weston's headless backend, kiosk shell)
/// for one test, in its own runtime directory, so tests never reach a real
/// session's compositor.
public final class Weston: Sendable {
    /// For `XDG_RUNTIME_DIR`.
    public let runtimeDirectory: String
    /// For `WAYLAND_DISPLAY`.
    public let display = "wayland-test"
    public let pid: pid_t

    public init() throws {
        guard let program = findExecutable("weston", path: "/usr/bin:/bin") else {
            throw FixtureError("weston is not installed (run scripts/ensure-deps test)")
        }
        runtimeDirectory = try makeTemporaryDirectory(prefix: "openurld-wayland")
        chmod(runtimeDirectory, 0o700)
        pid = try spawn(program, arguments: ["weston", "--backend=headless-backend.so", "--shell=kiosk-shell.so", "--idle-time=0",
                                             "--socket=" + display],
                        environment: ["PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + runtimeDirectory])
        // Weston prints nothing a test could wait on; its socket appears once it accepts clients.
        let clock = ContinuousClock()
        let end = clock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: runtimeDirectory + "/" + display + ".lock") || !canConnect() {
            guard clock.now < end, kill(pid, 0) == 0 else {
                stop()
                throw FixtureError("weston did not start")
            }
            usleep(5000)
        }
    }

    private func canConnect() -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((runtimeDirectory + "/" + display).utf8CString)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.map { UInt8(bitPattern: $0) }.prefix($0.count)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    public func stop() {
        Binaries.stop(pid)
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }
}

/// Runs `body` with a fresh headless compositor, stopping it afterwards.
public func withWeston<T>(_ body: (Weston) async throws -> T) async throws -> T {
    let compositor = try Weston()
    defer { compositor.stop() }
    return try await body(compositor)
}
