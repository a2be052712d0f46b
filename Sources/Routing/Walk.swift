/// What one handler said about a URL.
public enum HandlerAnswer: Sendable, Equatable {
    /// Stop; the URL was opened. (`OpenURLAction.Result.handled`)
    case handled
    /// Stop; the URL must not be opened. (`.discarded`)
    case discarded
    /// Pass the same URL outward. (`.systemAction`)
    case systemAction
    /// Pass this URL outward instead. (`.systemAction(url)`)
    case rewrite(String)
    /// Ask nobody further out: open this URL (the current one, or a rewrite
    /// of it) with the system default now. Rules only (`Result=default`):
    /// the exception to an outer rule, such as "not for localhost".
    case useDefault(String)
    /// The handler did not answer usefully (timeout, error, malformed reply):
    /// treated as `systemAction`, and reported.
    case failed(String)
    /// The dispatcher could not learn the answer through no fault of the
    /// handler (its own bus quota, a lost bus, shutting down): the walk ends
    /// and the URL is not opened, since the handler may have meant to stop it.
    case undecided(String)

    /// How the walk takes what a handler replied.
    public init(_ reply: HandlerReply) {
        switch reply {
        case .handled: self = .handled
        case .discarded: self = .discarded
        case .systemAction: self = .systemAction
        case .rewrite(let url): self = .rewrite(url)
        }
    }
}

/// How a walk ended.
public enum WalkOutcome: Sendable, Equatable {
    case handled(by: UInt32)
    case discarded(by: UInt32)
    /// The dispatcher could not ask this handler (`HandlerAnswer.undecided`).
    case undecided(by: UInt32, reason: String)
    /// Every handler passed: the caller should use the system default for `finalURL`.
    case passedOn
}

/// One handler asked during a walk: who, about which URL, and what came of it.
public struct TraceEntry: Sendable, Equatable {
    /// The id of the handler (or rule) asked.
    public let handlerID: UInt32
    /// Whether the handler is a rule from the configuration (see `Handler.isConfigured`).
    public let isConfigured: Bool
    /// Its name, for people.
    public let handlerName: String
    /// The URL the handler was asked about.
    public let url: String
    /// What it said, or what the dispatcher concluded.
    public let answer: HandlerAnswer
    /// Set when the handler's answer was not taken as given (e.g. an invalid rewrite).
    public let note: String?

    @usableFromInline
    init(handlerID: UInt32, isConfigured: Bool, handlerName: String, url: String, answer: HandlerAnswer, note: String?) {
        self.handlerID = handlerID
        self.isConfigured = isConfigured
        self.handlerName = handlerName
        self.url = url
        self.answer = answer
        self.note = note
    }
}

/// The result of a walk.
public struct WalkResult: Sendable, Equatable {
    /// How the walk ended.
    public let outcome: WalkOutcome
    /// The URL after all rewrites.
    public let finalURL: ValidatedURL
    /// Every handler asked, in order.
    public let trace: [TraceEntry]

    @usableFromInline
    init(outcome: WalkOutcome, finalURL: ValidatedURL, trace: [TraceEntry]) {
        self.outcome = outcome
        self.finalURL = finalURL
        self.trace = trace
    }

    /// Whether the URL was accepted by a handler (fallback not included).
    public var wasHandled: Bool { if case .handled = outcome { true } else { false } }
}

/// Asks the handlers matching `url`, innermost first, until one decides.
///
/// - Parameters:
///   - url: the URL as the caller opened it.
///   - caller: who opened it; selects caller-scoped handlers.
///   - candidates: the registry lookup, called again after each rewrite with
///     the rewriting handler's position so that only outer handlers remain.
///   - ask: asks one handler; the daemon makes the D-Bus call here.
///   - mayContinue: checked before each handler; `false` (the walk deadline
///     passed) skips the remaining handlers, as if each had passed.
///
/// Inlinable: the router, specialized for the daemon's handlers, specializes
/// the walk with it instead of calling it generically.
@inlinable
public func walk<Payload>(
    _ url: ValidatedURL, caller: String,
    candidates: (ValidatedURL, WalkPosition?) -> [Handler<Payload>],
    ask: (Handler<Payload>, ValidatedURL) async -> HandlerAnswer,
    mayContinue: () -> Bool = { true }
) async -> WalkResult {
    var url = url
    var trace: [TraceEntry] = []
    var queue = candidates(url, nil)[...]
    while let handler = queue.popFirst() {
        guard mayContinue() else {
            trace.append(TraceEntry(
                handlerID: handler.id, isConfigured: handler.isConfigured, handlerName: handler.spec.name, url: url.text,
                answer: .failed("not asked: the walk deadline passed"), note: nil))
            continue
        }
        let answer = await ask(handler, url)
        func record(_ note: String? = nil) {
            trace.append(TraceEntry(
                handlerID: handler.id, isConfigured: handler.isConfigured, handlerName: handler.spec.name, url: url.text,
                answer: answer, note: note))
        }
        switch answer {
        case .handled:
            record()
            return WalkResult(outcome: .handled(by: handler.id), finalURL: url, trace: trace)
        case .discarded:
            record()
            return WalkResult(outcome: .discarded(by: handler.id), finalURL: url, trace: trace)
        case .undecided(let reason):
            record()
            return WalkResult(outcome: .undecided(by: handler.id, reason: reason), finalURL: url, trace: trace)
        case .systemAction, .failed:
            record()
        case .useDefault(let text):
            guard let target = try? ValidatedURL(text) else {
                record("ignored: not a valid URL")
                continue
            }
            record()
            return WalkResult(outcome: .passedOn, finalURL: target, trace: trace)
        case .rewrite(let text):
            do {
                let rewritten = try ValidatedURL(text)
                record()
                if rewritten != url {
                    url = rewritten
                    queue = candidates(url, handler.position(for: caller))[...]
                }
            } catch {
                record("ignored the rewrite: \(error.message)")
            }
        }
    }
    return WalkResult(outcome: .passedOn, finalURL: url, trace: trace)
}
