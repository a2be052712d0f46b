extension DispatcherAPI {
    /// The keys of the interfaces' `a{sv}` options, contexts and platform
    /// data, spelled once: every side reads and writes them from here
    /// (`ContractLiteralTests` finds any spelled again elsewhere).
    public enum OptionKey {
        /// `OpenURLWithOptions`, `Application.Open`, `HandleURL`'s context, `Choose`: the caller's activation token.
        public static let activationToken = "activation-token"
        /// `OpenURLWithOptions`: ask the person first.
        public static let ask = "ask"
        /// `OpenURLWithOptions` and `Choose`: the text of the link clicked.
        public static let linkText = "link-text"
        /// `OpenURLWithOptions`: show a failure as a notification.
        public static let notifyFailure = "notify-failure"
        /// `DetectLinks`: the kinds of link to find.
        public static let kinds = "kinds"
        /// `Application.Open` platform data: an X11 startup ID.
        public static let desktopStartupID = "desktop-startup-id"
        /// `HandleURL`'s context and `Choose`: who asked.
        public static let caller = "caller"
        public static let callerAppID = "caller-app-id"
        /// `HandleURL`'s context: the URL before any handler rewrote it.
        public static let originalURL = "original-url"
        /// `Choose`: the rule that asked, remembering, the deadline, the default, the targets left out.
        public static let rule = "rule"
        public static let remember = "remember"
        public static let rememberHost = "remember-host"
        public static let rememberDomain = "remember-domain"
        public static let timeout = "timeout"
        public static let deadline = "deadline"
        public static let defaultTarget = "default-target"
        public static let defaultName = "default-name"
        public static let omittedTargets = "omitted-targets"

        /// Every key above, for the test that looks for them spelled again.
        public static let all = [
            activationToken, ask, linkText, notifyFailure, kinds, desktopStartupID, caller, callerAppID, originalURL, rule,
            remember, rememberHost, rememberDomain, timeout, deadline, defaultTarget, defaultName, omittedTargets,
        ]
    }
}
