import Routing
import SafeText

/// Something openurld could not do that no caller will show the person: a
/// link not opened for a caller with no terminal (`openurl` started by KIO,
/// `xdg-open` or a terminal's link handler), a walk that failed after its
/// caller was answered, a rule that could not do its work. Shown as a
/// desktop notification (`DesktopNotifications`).
public struct FailureNotice: Sendable, Equatable {
    /// What failed.
    public enum Kind: Sendable, Equatable {
        /// A link was not opened.
        case notOpened
        /// A rule (named) could not do its work; the walk went on.
        case ruleFailed(String)
    }

    /// What failed.
    public let kind: Kind
    /// The link as shown: its scheme and host only (a path can hold a session token).
    public let link: String
    /// Why, for people.
    public let reason: String

    /// A link `openurl` could not even read: it is shown as "a link", since its text is no URL.
    public init(unreadableLink: String, reason: String) {
        kind = .notOpened
        link = "a link"
        self.reason = reason
    }

    /// A notice of `kind` about `url`, shown by its scheme and host only.
    public init(_ kind: Kind, url: ValidatedURL, reason: String) {
        self.kind = kind
        if let host = url.host?.description, !host.isEmpty {
            link = url.scheme + "://" + host
        } else {
            link = "a " + url.scheme + ": link"
        }
        self.reason = reason
    }

    /// The longest reason shown; the rest is cut with "…".
    static let maximumReasonLength = 300

    /// The notification's title.
    public var summary: String {
        switch kind {
        case .notOpened: "Link not opened"
        case .ruleFailed(let name): "Rule “" + Self.cut(displayable(name), to: 60) + "” failed"
        }
    }

    /// The notification's text: the link and why, every piece of peer text
    /// escaped as everywhere else (`SafeText`), and with `&`, `<` and `>`
    /// escaped too when the server renders markup, so that a reason cannot
    /// turn into a link or a tag. `alsoNotShown`: notices dropped by the rate limit since the last one shown.
    public func body(markup: Bool, alsoNotShown: Int = 0) -> String {
        var text = Self.cut(displayable(link), to: 120) + ": " + Self.cut(displayable(reason), to: Self.maximumReasonLength)
        if alsoNotShown > 0 {
            text += "\n(and \(alsoNotShown) more not shown; see the journal: journalctl --user -u openurld)"
        }
        return markup ? xmlEscaped(text) : text
    }

    static func cut(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}

/// At most `limit` notices in any `window`; the ones past it are counted
/// and said in the next one shown. Pure: the time is given.
public struct NoticeRateLimit: Sendable, Equatable {
    /// How many notices one window may show.
    public static let limit = 3
    /// The window, in nanoseconds.
    public static let window: UInt64 = 30_000_000_000  // 30 s in nanoseconds

    /// When the notices in the window were shown (monotonic nanoseconds), oldest first.
    public private(set) var shown: [UInt64] = []
    /// Notices dropped since the last one shown.
    public private(set) var dropped = 0

    /// A limit with these notices already shown and dropped.
    public init(shown: [UInt64] = [], dropped: Int = 0) {
        self.shown = shown
        self.dropped = max(0, dropped)
    }

    /// Whether a notice may be shown at `now`; when it may, how many were dropped before it.
    public mutating func admit(at now: UInt64) -> Int? {
        // A time in the future (another boot's record, a clock that went back) counts as now.
        shown = shown.map { min($0, now) }.filter { now - $0 < Self.window }
        guard shown.count < Self.limit else {
            dropped += 1
            return nil
        }
        shown.append(now)
        defer { dropped = 0 }
        return dropped
    }
}

/// Where `FailureNotice`s go.
public protocol FailureNotices: Sendable {
    /// Shows `notice` (or counts it, past the rate limit); returns at once.
    func show(_ notice: FailureNotice)
}

/// Notices that go nowhere: tests of the walk alone, `--quiet`.
public struct NoFailureNotices: FailureNotices {
    /// Notices that go nowhere.
    public init() {}
    /// Drops `notice`.
    public func show(_ notice: FailureNotice) {}
}
