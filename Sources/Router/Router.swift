import Routing
import Rules
import XDG

/// One way for a URL: run-time handlers and rules, innermost first, within
/// one deadline that covers the launches too, then the system default.
///
/// The daemon's `OpenURL`, its `Explain` and `openurl`'s direct path (no
/// daemon) are this type with different parameters, so they cannot disagree
/// about order, deadlines, rule effects or what they report. It does no I/O
/// of its own: asking a handler and the fallback are given to it.
public struct Router<Endpoint: Sendable>: Sendable {
    /// One place in the walk: a run-time handler, or a rule.
    public enum Step: Sendable {
        case handler(Endpoint)
        case rule(Rule)
    }

    /// The run-time handlers matching a URL (outside `position`, after a rewrite), innermost first.
    public typealias Handlers = @Sendable (ValidatedURL, WalkPosition?) -> [Handler<Endpoint>]
    /// Asks one run-time handler about a URL, within the time left of the walk.
    public typealias Ask = @Sendable (Handler<Endpoint>, ValidatedURL, _ timeLeft: Duration) async -> HandlerAnswer

    /// The rules, asked among the run-time handlers by priority.
    public let rules: RuleSet
    /// The run-time handlers matching a URL.
    public let handlers: Handlers
    /// How a run-time handler is asked.
    public let ask: Ask
    /// What opens the URL when every step passes, and what rules' `Open=` and `Exec=` launch with.
    public let opener: any URLOpener
    /// How long one walk may take, launches included.
    public let deadline: Duration
    /// Who asks the person, for `Ask=` rules and walks that ask first.
    public let chooser: any Chooser
    /// How long the person may take to choose: once the chooser is asked,
    /// the walk's deadline is this far from that moment.
    public let chooserDeadline: Duration
    /// What an answer about a URL could be remembered for; `nil` when answers
    /// are not remembered.
    public let rememberable: @Sendable (ValidatedURL) -> RememberTargets?

    /// - Parameters:
    ///   - rules: one set for the whole walk, even if the files are reloaded meanwhile.
    ///   - handlers: none by default (openurl's direct path). Not optional:
    ///     an optional closure unwrapped into the stored one was rewrapped
    ///     in a thunk, an allocation on every walk.
    public init(rules: RuleSet, handlers: @escaping Handlers = { _, _ in [] }, ask: @escaping Ask = { _, _, _ in .systemAction },
                opener: any URLOpener, deadline: Duration,
                chooser: any Chooser = NoChooser(), chooserDeadline: Duration = .seconds(300),
                rememberable: @escaping @Sendable (ValidatedURL) -> RememberTargets? = { _ in nil }) {
        self.rules = rules
        self.handlers = handlers
        self.ask = ask
        self.opener = opener
        self.deadline = deadline
        self.chooser = chooser
        self.chooserDeadline = chooserDeadline
        self.rememberable = rememberable
    }

    /// What became of a URL.
    public struct Route: Sendable, Equatable {
        /// How it ended.
        public var outcome: Outcome
        /// The URL after every rewrite.
        public var finalURL: ValidatedURL
        /// The run-time handler that decided, if one did.
        public var handler: UInt32?
        /// The rule that decided, if one did.
        public var rule: String?
        /// The application started, by a rule or the fallback.
        public var application: String?
        /// Why, when the URL was not opened.
        public var message: String?
        /// Every handler and rule asked, in order.
        public var trace: [TraceEntry]
        /// An answer the person asked to be remembered.
        public var remembered: RememberedChoice?
    }

    /// How the chooser is reached in one walk.
    public struct Asking: Sendable {
        /// Ask before any handler or rule (`openurl --ask`, the `ask` option).
        public var first: Bool
        /// The text of the link the person clicked, when the caller passed it.
        public var linkText: String?
        /// Told when the walk starts waiting for the person: a caller that
        /// cannot wait minutes (`Application.Open`, GIO's 25 s) is answered then.
        public var onAsk: (@Sendable () -> Void)?

        /// Asking first or not, for a link shown as `linkText`, telling `onAsk` when the person is asked.
        public init(first: Bool = false, linkText: String? = nil, onAsk: (@Sendable () -> Void)? = nil) {
            self.first = first
            self.linkText = linkText
            self.onAsk = onAsk
        }
    }

    /// Walks `url` for `caller`, performing rules and asking handlers, then
    /// falls back to the system default.
    /// - Parameters:
    ///   - callerAppID: for rules' `Callers=`; `nil` when unknown.
    ///   - asking: whether to ask the person first, and what to tell the chooser.
    ///   - onRuleFailure: told when a rule could not do its work (it then passes, like a failing handler).
    ///
    /// Compiled for the daemon's handlers too (`HandlerEndpoint`): left
    /// generic, every walk looked up the metadata of `Handler`, `Step` and
    /// `Route` at run time.
    @_specialize(exported: true, where Endpoint == HandlerEndpoint)
    public func open(
        _ url: ValidatedURL, caller: String, callerAppID: String?, activationToken: String?, asking: Asking = Asking(),
        onRuleFailure: @Sendable (Rule, String) -> Void = { _, _ in }
    ) async -> Route {
        if let route = routeAtOnce(url, callerAppID: callerAppID, asking: asking) { return route }
        let progress = WalkProgress(end: WalkClock.now + deadline, token: activationToken)

        /// Asks the person, then opens what they chose; the answer as a step of the walk.
        /// Never inlined: an async function's locals live in its frame, which the
        /// task allocates per call, and this one's would make every walk's 8 KB.
        @inline(never) func choose(_ current: ValidatedURL, offering targets: [Target], rule: Rule?) async -> HandlerAnswer {
            var request = ChoiceRequest(
                url: current, candidates: opener.candidates(for: current, offering: targets), activationToken: progress.token,
                callerAppID: callerAppID, rule: rule?.name, remember: rememberable(current), linkText: asking.linkText)
            guard !request.candidates.isEmpty else { return .failed("nothing to offer the chooser for \(current.scheme): URLs") }
            // Named, so that "Use Default" can say where it goes.
            request.defaultApplication = opener.application(for: current).map { id in
                let target = Target.application(id)
                return (request.candidates + opener.candidates(for: current, offering: [target])).first { $0.target == target }
                    ?? ChooserCandidate(target: target, name: id, icon: "")
            }
            // The person's time is not the handlers' time: the walk's deadline restarts now.
            progress.end = WalkClock.now + chooserDeadline
            asking.onAsk?()
            let choice = await chooser.choose(request, timeout: chooserDeadline)
            // What follows the answer (the launch, or the rest of the walk) has a walk's time from now.
            progress.end = max(progress.end, WalkClock.now + deadline)
            switch choice {
            case .target(let target, let chosen, let freshToken, let scope):
                if let freshToken { progress.token = freshToken }
                let launch = await LaunchDeadline.during(walkEndingAt: progress.end) {
                    await opener.open(chosen, with: target, activationToken: progress.token)
                }
                let application: String
                switch launch {
                case .opened(let started): application = started
                case .refused(let reason):
                    // What the person chose (an edited address, perhaps) is
                    // never launched; the default must not open the URL instead.
                    return .undecided("the chosen \(target) was not given the URL: \(reason)")
                case .noApplication(let reason), .launchFailed(_, let reason):
                    return .failed("could not launch the chosen \(target): \(reason)")
                }
                progress.launched = application
                // Remembered for the host that opened (the address as
                // edited), as the window said: never the one first asked about.
                if scope != .none, request.remember != nil, let scopes = rememberable(chosen) {
                    let domain = scope == .domain ? scopes.domain : nil
                    progress.remembered = RememberedChoice(
                        target: target, scheme: current.scheme, host: domain ?? scopes.host, includesSubdomains: domain != nil,
                        priority: rule.map { $0.spec.priority == .max ? .max : $0.spec.priority + 1 } ?? 0)
                }
                // The URL opened is the one the person saw, or edited.
                progress.chosenURL = chosen
                return .handled
            case .useDefault: return .systemAction
            case .cancelled: return .discarded
            case .unavailable(let reason): return .failed(reason)
            case .lost(let reason): return .undecided(reason)
            case .unanswered(let wait): return .undecided(Choice.unansweredMessage(after: wait))
            }
        }

        if asking.first {
            switch await choose(url, offering: [], rule: nil) {
            case .handled:
                return Route(outcome: .handled, finalURL: progress.chosenURL ?? url, application: progress.launched, trace: [], remembered: progress.remembered)
            case .discarded:
                return Route(outcome: .discarded, finalURL: url, message: "cancelled in the chooser", trace: [])
            case .undecided(let reason):
                return Route(outcome: .undecided, finalURL: url, message: reason, trace: [])
            default:
                break // use the default, or no chooser: the walk as usual
            }
        }

        let result = await walk(
            url, caller: caller,
            candidates: { url, position in candidates(for: url, caller: caller, callerAppID: callerAppID, outside: position) },
            ask: { step, current in
                switch step.payload {
                case .handler(let endpoint):
                    return await ask(step.withPayload { _ in endpoint }, current, progress.end - WalkClock.now)
                case .rule(let rule):
                    if case .ask(let askedURL, let targets) = rule.evaluate(current) {
                        let answer = await choose(askedURL, offering: targets, rule: rule)
                        if case .failed(let reason) = answer { onRuleFailure(rule, reason) }
                        return answer
                    }
                    let performance = await LaunchDeadline.during(walkEndingAt: progress.end) {
                        await rule.perform(on: current, opener: opener, activationToken: progress.token)
                    }
                    if let application = performance.application { progress.launched = application }
                    if case .failed(let reason) = performance.answer { onRuleFailure(rule, reason) }
                    return performance.answer
                }
            },
            mayContinue: { WalkClock.now < progress.end })
        let decidedByRule = result.trace.last?.isConfigured == true
        var route = Route(outcome: .undecided, finalURL: result.finalURL, trace: result.trace, remembered: progress.remembered)
        switch result.outcome {
        case .handled(let id), .discarded(let id):
            route.outcome = result.wasHandled ? .handled : .discarded
            if decidedByRule {
                route.rule = result.trace.last?.handlerName
                route.application = progress.launched
                if result.wasHandled, let chosenURL = progress.chosenURL { route.finalURL = chosenURL }
            } else {
                route.handler = id
            }
        case .undecided(let id, let reason):
            route.message = reason
            if decidedByRule { route.rule = result.trace.last?.handlerName } else { route.handler = id }
        case .passedOn:
            let fallbackResult = await LaunchDeadline.during(walkEndingAt: progress.end) {
                await opener.open(result.finalURL, activationToken: progress.token)
            }
            route.fallBack(fallbackResult)
        }
        return route
    }

    /// The route `open` takes when it can be told without waiting: nobody
    /// is asked first, no handler or rule takes part for `url`, and the
    /// fallback refuses it from the URL alone (`URLOpener.refusal(of:)`).
    /// `nil` when only the walk can tell. `open` starts here, so that the
    /// two cannot differ; a caller that must not wait (a method answered
    /// on the bus's loop) asks this first and walks only on `nil`. No
    /// caller: `handlers` already answers for the walk's, and the order of
    /// the candidates, which is all a caller changes, does not matter here.
    @_specialize(exported: true, where Endpoint == HandlerEndpoint)
    public func routeAtOnce(_ url: ValidatedURL, callerAppID: String?, asking: Asking = Asking()) -> Route? {
        Self.routeAtOnce(url, handlers: handlers(url, nil), rules: rules, callerAppID: callerAppID, opener: opener, asking: asking)
    }

    /// `routeAtOnce` without a router: the same test on the parts it reads,
    /// `handlers` being the run-time handlers matching `url` for its caller
    /// (read only when the opener refuses the URL). A caller answering on
    /// the bus's loop asks this, and builds a router (its closures, each an
    /// allocation) only for the walk.
    @_specialize(exported: true, where Endpoint == HandlerEndpoint)
    public static func routeAtOnce(
        _ url: ValidatedURL, handlers: @autoclosure () -> [Handler<Endpoint>], rules: RuleSet, callerAppID: String?,
        opener: any URLOpener, asking: Asking = Asking()
    ) -> Route? {
        // No candidate at all: `candidates(for:…)` is these two lists merged.
        guard !asking.first, let reason = opener.refusal(of: url), handlers().isEmpty,
              rules.candidates(for: url, callerAppID: callerAppID).isEmpty
        else { return nil }
        return Route(outcome: .refused, finalURL: url, message: reason, trace: [])
    }

    /// One step of a dry run, as `Explain` reports it.
    public struct ExplainedStep: Sendable {
        /// The handler or rule.
        public let step: Handler<Step>
        /// The URL the step would be asked about.
        public let url: ValidatedURL
        /// What it would answer: run-time handlers are taken to pass (asking
        /// them would act); rules are evaluated, launching nothing.
        public let answer: HandlerAnswer
        /// For rules: what the rule would do to this URL, in words.
        public let effect: String?
    }

    /// A dry run of `open`: the steps in order, and the application the walk
    /// would end with (`nil` when it would stop before the fallback, or none
    /// is set up).
    public func explain(_ url: ValidatedURL, caller: String, callerAppID: String?) async -> (steps: [ExplainedStep], application: String?) {
        var steps: [ExplainedStep] = []
        let result = await walk(
            url, caller: caller,
            candidates: { url, position in candidates(for: url, caller: caller, callerAppID: callerAppID, outside: position) },
            ask: { step, current in
                let (answer, effect): (HandlerAnswer, String?) = switch step.payload {
                case .handler: (.systemAction, nil)
                case .rule(let rule): Self.dryRun(rule.evaluate(current))
                }
                steps.append(ExplainedStep(step: step, url: current, answer: answer, effect: effect))
                return answer
            })
        guard case .passedOn = result.outcome else { return (steps, nil) }
        return (steps, opener.application(for: result.finalURL))
    }

    /// Run-time handlers and rules matching `url`, innermost first.
    func candidates(for url: ValidatedURL, caller: String, callerAppID: String?, outside position: WalkPosition?) -> [Handler<Step>] {
        let live = handlers(url, position).map { $0.withPayload(Step.handler) }
        let matchingRules = rules.candidates(for: url, callerAppID: callerAppID, outside: position)
        if matchingRules.isEmpty { return live }
        return (live + matchingRules.map { $0.withPayload(Step.rule) }).sorted { $0.position(for: caller) < $1.position(for: caller) }
    }

    /// What a rule's effect would answer, launching nothing and asking no one
    /// (an `Ask=` passes), and what it would do, in words.
    static func dryRun(_ effect: RuleEffect) -> (HandlerAnswer, String) {
        let answer: HandlerAnswer = switch effect {
        case .passOn(let url): .rewrite(url.text)
        case .answer(let answer, _): answer
        case .useDefault(let url): .useDefault(url.text)
        case .open, .exec: .handled
        case .failed(let reason): .failed(reason)
        case .ask: .systemAction
        }
        return (answer, effect.explanation)
    }
}

extension Router.Route {
    /// Records what the system default did.
    mutating func fallBack(_ result: LaunchResult) {
        switch result {
        case .opened(let application):
            (outcome, self.application) = (.opened, application)
        case .noApplication(let reason):
            (outcome, message) = (.noApplication, reason)
        case .launchFailed(let application, let reason):
            (outcome, self.application, message) = (.launchFailed, application, reason)
        case .refused(let reason):
            (outcome, message) = (.refused, reason)
        }
    }
}

extension Router.Route {
    /// What `OpenURLWithOptions` reports of this walk: all but the trace.
    public var report: OpenURLOutcome {
        OpenURLOutcome(
            outcome: outcome, finalURL: finalURL.text, handler: handler, rule: rule, application: application, message: message)
    }
}
