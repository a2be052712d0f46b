import Spawn

/// Starts the preferences window (`openurld-chooser` with no argument), for
/// a notification's action.
public enum PreferencesLauncher {
    /// A starter for the window, or `nil` when `openurld-chooser` is not on
    /// `PATH` (a dmenu-only install): then no notification offers it.
    public static func starter(
        environment: [String: String], reaper: ChildReaper, warn: @escaping @Sendable (String) -> Void
    ) -> (@Sendable (_ activationToken: String?) -> Void)? {
        guard let program = findExecutable("openurld-chooser", path: environment["PATH"]) else { return nil }
        return { token in
            var launched = environment
            launched["XDG_ACTIVATION_TOKEN"] = token
            launched["DESKTOP_STARTUP_ID"] = token
            let environment = launched.map { $0.key + "=" + $0.value }
            Task {
                do throws(SpawnError) {
                    let pid = try await retryingWhileTextFileBusy { () throws(SpawnError) in
                        try spawn(program, arguments: ["openurld-chooser"], environment: environment, newSession: true)
                    }
                    reaper.adopt(pid)
                } catch {
                    warn("cannot start the preferences window: \(error)")
                }
            }
        }
    }
}
