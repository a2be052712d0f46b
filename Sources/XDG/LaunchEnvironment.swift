/// The environment an application is launched with: the launcher's own,
/// without what describes the launcher's start rather than the app's, and
/// with this launch's activation token.
///
/// Whoever started `openurl` or `openurld` leaves marks in its environment
/// that are wrong, or harmful, in a browser started from it: GIO's record of
/// which desktop file it launched, Chromium's and Electron's switches, an
/// AppImage's paths, D-Bus activation's starter address, and an activation
/// token already spent. Pure: the same table for the daemon and `openurl`.
public enum LaunchEnvironment {
    /// Variables never passed on, with why.
    public static let removed: [String: String] = [
        "GIO_LAUNCHED_DESKTOP_FILE": "GIO's record of the desktop file that launched the dispatcher",
        "GIO_LAUNCHED_DESKTOP_FILE_PID": "GIO's record of the process it launched",
        "BAMF_DESKTOP_FILE_HINT": "Unity's hint naming the launcher's desktop file",
        "CHROME_DESKTOP": "names the desktop file of the Chromium-based app that launched us",
        "CHROME_WRAPPER": "the wrapper script of the Chromium-based app that launched us",
        "ELECTRON_RUN_AS_NODE": "turns any Electron app into a bare Node.js interpreter",
        "ELECTRON_NO_ATTACH_CONSOLE": "an Electron launcher's console setting",
        "APPIMAGE": "the AppImage the caller runs from",
        "APPDIR": "the AppImage the caller runs from",
        "ARGV0": "the AppImage the caller runs from",
        "OWD": "the AppImage caller's working directory",
        "DBUS_STARTER_ADDRESS": "D-Bus activation's note of how the dispatcher was started",
        "DBUS_STARTER_BUS_TYPE": "D-Bus activation's note of how the dispatcher was started",
        "OPENURL_URL": "the URL an `openurl handle` program was given",
        "XDG_ACTIVATION_TOKEN": "a token already used; only this launch's is passed",
        "DESKTOP_STARTUP_ID": "a startup ID already used; only this launch's is passed",
    ]

    /// `environment` cleaned for a launch that carries `token`, when there is one.
    public static func forLaunch(from environment: [String: String], token: String?) -> [String: String] {
        // Removed where present: the common launch carries none of them,
        // and a filtered copy cost it a lookup and an insertion per variable.
        var result = environment
        for name in removed.keys where result[name] != nil { result[name] = nil }
        if let token {
            result["XDG_ACTIVATION_TOKEN"] = token
            result["DESKTOP_STARTUP_ID"] = token
        }
        return result
    }
}
