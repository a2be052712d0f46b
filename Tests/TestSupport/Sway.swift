import Foundation
import Spawn

/// A headless wlroots compositor (sway's headless backend, no input
/// devices) for one test, in its own runtime directory: for the menus that
/// need wlr-layer-shell (fuzzel), which weston does not offer. Keys come from
/// `wtype` (the virtual-keyboard protocol).
///
/// sway refuses to run as root; as root the fixture runs it as `nobody`
/// (setpriv), in a runtime directory that user owns. Clients running as
/// root still connect to it.
public final class Sway: Sendable {
    /// For `XDG_RUNTIME_DIR`.
    public let runtimeDirectory: String
    /// For `WAYLAND_DISPLAY`, once sway made its socket.
    public let display: String
    public let pid: pid_t

    public static let nobody: uid_t = 65534

    public init() throws {
        guard let program = findExecutable("sway", path: "/usr/bin:/bin") else {
            throw FixtureError("sway is not installed (run scripts/ensure-deps test)")
        }
        runtimeDirectory = try makeTemporaryDirectory(prefix: "openurld-sway")
        let config = runtimeDirectory + "/config"
        try "output HEADLESS-1 resolution 1024x768\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(runtimeDirectory, 0o700)
        let environment = ["PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + runtimeDirectory, "HOME=" + runtimeDirectory,
                           "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1"]
        if getuid() == 0 {
            chown(runtimeDirectory, Self.nobody, gid_t(Self.nobody))
            chown(config, Self.nobody, gid_t(Self.nobody))
            pid = try spawn("/usr/bin/setpriv", arguments: ["setpriv", "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups",
                                                             program, "-c", config], environment: environment, stderr: .null)
        } else {
            pid = try spawn(program, arguments: ["sway", "-c", config], environment: environment, stderr: .null)
        }
        // sway names its socket itself (wayland-1, …); it accepts clients once the file is there.
        let clock = ContinuousClock()
        let end = clock.now + .seconds(10)
        var found: String?
        while found == nil {
            found = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            guard found == nil else { break }
            guard clock.now < end, kill(pid, 0) == 0 else {
                kill(pid, SIGKILL)
                _ = reap(pid)
                throw FixtureError("sway did not start")
            }
            usleep(5000)
        }
        display = found!
    }

    /// What a client of this compositor needs in its environment.
    public var environment: [String: String] { ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": display] }

    public func stop() {
        Binaries.stop(pid)
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }
}

/// Runs `body` with a fresh headless sway, stopping it afterwards.
public func withSway<T>(_ body: (Sway) async throws -> T) async throws -> T {
    let compositor = try Sway()
    defer { compositor.stop() }
    return try await body(compositor)
}
