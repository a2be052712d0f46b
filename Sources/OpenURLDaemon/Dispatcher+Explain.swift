import DBus
import DispatcherAPI
import Router
import Routing

extension Dispatcher {
    /// A dry run of `dispatch`, by the same router: rules are evaluated
    /// (nothing is launched) and run-time handlers are listed as if each
    /// passed, since asking them would act. Returns each step as `Explain`
    /// describes it and the application the walk would end with ("" when it
    /// would stop before the fallback, or none is set up).
    func explain(_ url: ValidatedURL, caller: BusName) async -> (steps: [[String: Variant]], application: String) {
        let rules = loadedRules.rules
        let walk = WalkCaller(caller, of: self, original: url, activationToken: nil)
        let callerAppID = rules.needsCallerAppID ? await walk.appID : nil
        let (steps, application) = await router(for: walk, rules: rules)
            .explain(url, caller: caller.rawValue, callerAppID: callerAppID)
        return (steps.map(Self.explanation), application ?? "")
    }

    /// One step's `a{sv}`: the handler's or the whole rule's entry (as
    /// `ListHandlers` and `ListRules` give them), then what it would do; a
    /// rule's `effect` says what it would do to this URL.
    static func explanation(_ explained: Router<HandlerEndpoint>.ExplainedStep) -> [String: Variant] {
        var handler: DispatcherAPI.HandlerInfo?
        var rule: DispatcherAPI.RuleInfo?
        switch explained.step.payload {
        case .handler(let endpoint): handler = explained.step.withPayload { _ in endpoint }.info
        case .rule(let loaded):
            rule = DispatcherAPI.RuleInfo(loaded)
            if let effect = explained.effect { rule?.effect = effect }
        }
        let current = explained.url
        var resultURL: String?
        switch explained.answer {
        case .rewrite(let text): resultURL = text
        case .useDefault(let text) where text != current.text: resultURL = text
        default: break
        }
        return DispatcherAPI.ExplainStep(
            handler: handler, rule: rule, url: current.text, result: explained.answer.resultString, resultURL: resultURL,
            host: current.host?.description
        ).listing
    }
}
