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
        /// `DetectLinks`: the region national phone numbers are read in (ISO 3166, `FR`).
        public static let region = "region"
        /// `Application.Open` platform data: an X11 startup ID.
        public static let desktopStartupID = "desktop-startup-id"
        /// `HandleURL`'s context and `Choose`: who asked.
        public static let caller = "caller"
        /// `HandleURL`'s context: the caller's application ID.
        public static let callerAppID = "caller-app-id"
        /// `HandleURL`'s context: the URL before any handler rewrote it.
        public static let originalURL = "original-url"
        /// `Choose`: the rule that asked, remembering, the deadline, the default, the targets left out.
        public static let rule = "rule"
        /// `Choose`'s options: whether the answer may be remembered; its results: how far (`none`, `host`, `domain`).
        public static let remember = "remember"
        /// `Choose`'s options: the host an answer would be remembered for.
        public static let rememberHost = "remember-host"
        /// `Choose`'s options: the domain an answer would be remembered for.
        public static let rememberDomain = "remember-domain"
        /// `Choose`'s options: how long the daemon waits, in seconds.
        public static let timeout = "timeout"
        /// `Choose`'s options: when the daemon stops waiting, `CLOCK_MONOTONIC` microseconds.
        public static let deadline = "deadline"
        /// `Choose`'s options: the target of the default application.
        public static let defaultTarget = "default-target"
        /// `Choose`'s options: the default application's name.
        public static let defaultName = "default-name"
        /// `Choose`'s options: how many targets were left out of the list.
        public static let omittedTargets = "omitted-targets"

        /// Every key above, for the test that looks for them spelled again.
        public static let all = [
            activationToken, ask, linkText, notifyFailure, kinds, region, desktopStartupID, caller, callerAppID, originalURL, rule,
            remember, rememberHost, rememberDomain, timeout, deadline, defaultTarget, defaultName, omittedTargets,
        ]
    }
}

extension DispatcherAPI {
    /// The keys of `OpenURLWithOptions`' `a{sv}` result (and `rule`, an
    /// `OptionKey` shared with `HandleURL`'s context), spelled once for the
    /// daemon that writes them and every client that reads them.
    public enum ResultKey {
        /// The outcome word (`Outcome`).
        public static let outcome = "outcome"
        /// The URL after rewrites.
        public static let url = "url"
        /// The id of the run-time handler that decided.
        public static let handler = "handler"
        /// The desktop-file ID started.
        public static let application = "application"
        /// Why it was not opened, for people.
        public static let message = "message"
    }
}
