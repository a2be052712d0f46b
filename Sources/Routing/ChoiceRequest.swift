/// One choice offered to the person: a target, with what to show for it.
public struct ChooserCandidate: Sendable, Equatable {
    /// What kind of target it is, as the chooser interface spells it.
    public enum Kind: String, Sendable, CaseIterable {
        case application, action, profile
    }

    /// Where the URL goes when this is chosen.
    public let target: Target
    /// The name to show, e.g. "Firefox (work)".
    public let name: String
    /// An icon name or absolute path, from the desktop entry; empty for none.
    public let icon: String

    /// A candidate showing `name` and `icon` for `target`.
    public init(target: Target, name: String, icon: String) {
        self.target = target
        self.name = name
        self.icon = icon
    }

    /// Whether the target is an application, one of its actions, or a browser profile.
    public var kind: Kind {
        switch target {
        case .application: .application
        case .action: .action
        case .profile: .profile
        }
    }
}

/// How widely an answer is remembered.
public enum RememberScope: String, Sendable, CaseIterable {
    /// Not at all.
    case none
    /// For this host only.
    case host
    /// For the host's registrable domain and every host below it.
    case domain
}

/// What the chooser is asked.
public struct ChoiceRequest: Sendable, Equatable {
    /// The URL to open.
    public var url: ValidatedURL
    /// The targets to offer, the default first.
    public var candidates: [ChooserCandidate]
    /// The caller's activation token, for the chooser's window and the launch.
    public var activationToken: String?
    /// The calling application's ID, when known.
    public var callerAppID: String?
    /// The rule whose `Ask=` asked; `nil` when the caller asked for the chooser.
    public var rule: String?
    /// What "remember" would cover, or `nil` when the answer cannot be
    /// remembered (the URL has no host, or there is nowhere to write it).
    public var remember: RememberTargets?
    /// The text of the link the person clicked, when the caller passed it.
    public var linkText: String?
    /// How many targets were left out, past `maximumCandidates`.
    public var omitted = 0
    /// The application "use the default" ends at when nothing further out
    /// decides: the desktop's default for the URL (or the one behind the
    /// dispatcher), with its name; `nil` when there is none.
    public var defaultApplication: ChooserCandidate?

    /// The most targets one question offers (what `Chooser1` takes); more
    /// are left out, the last first, so the best (the default) stay.
    public static let maximumCandidates = 256

    /// A question about `url` offering `candidates` (at most `maximumCandidates`; `omitted` counts the rest).
    public init(url: ValidatedURL, candidates: [ChooserCandidate], activationToken: String? = nil, callerAppID: String? = nil,
                rule: String? = nil, remember: RememberTargets? = nil, linkText: String? = nil) {
        self.url = url
        self.candidates = Array(candidates.prefix(Self.maximumCandidates))
        self.omitted = candidates.count - self.candidates.count
        self.activationToken = activationToken
        self.callerAppID = callerAppID
        self.rule = rule
        self.remember = remember
        self.linkText = linkText
    }
}

/// The host and domain an answer would be remembered for.
public struct RememberTargets: Sendable, Equatable {
    /// The host, as a browser reads it.
    public let host: String
    /// The registrable domain, when it differs from the host.
    public let domain: String?

    /// Remembering for `host` and, when it is another name, for `domain`.
    public init(host: String, domain: String?) {
        self.host = host
        self.domain = domain == host ? nil : domain
    }
}

