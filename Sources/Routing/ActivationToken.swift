/// The activation token or startup ID a launch carries (XDG activation, X11
/// startup notification): what openurld takes from callers and choosers and
/// passes to handlers and launched applications. Pure, so that the fast
/// `openurl` front checks a token with the same rule as the daemon.
public enum ActivationToken {
    /// The longest token taken: XDG activation tokens and X11 startup IDs
    /// are tens of bytes; this leaves room and keeps every handler's context
    /// and the launched app's environment small.
    public static let maximumLength = 1024

    /// What is wrong with `token`, or `nil`: it must be printable ASCII
    /// without spaces and at most `maximumLength` bytes, since it is passed
    /// to handlers and put in launched apps' environments.
    public static func problem(_ token: String) -> String? {
        guard token.utf8.count <= maximumLength else {
            return "is \(token.utf8.count) bytes long; the limit is \(maximumLength)"
        }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "may hold only printable ASCII without spaces" }
        return nil
    }

    /// The token a program was started with: `XDG_ACTIVATION_TOKEN`, else
    /// `DESKTOP_STARTUP_ID`; an empty variable counts as unset.
    /// - Parameter variable: the value of an environment variable, if set.
    public static func inherited(_ variable: (String) -> String?) -> String? {
        for name in ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"] {
            if let value = variable(name), !value.isEmpty { return value }
        }
        return nil
    }
}
