import DBus
import Router
import Routing
import Rules

extension Dispatcher {
    /// A dry run of `dispatch`, by the same router: rules are evaluated
    /// (nothing is launched) and run-time handlers are listed as if each
    /// passed, since asking them would act. Returns each step as `Explain`
    /// describes it and the application the walk would end with ("" when it
    /// would stop before the fallback, or none is set up).
    func explain(_ url: ValidatedURL, caller: BusName) async -> (steps: [[String: Variant]], application: String) {
        let rules = loadedRules.rules
        let appID = LazyAppID(caller: caller, identities: identities)
        let callerAppID = rules.needsCallerAppID ? await appID.value : nil
        let (steps, application) = await router(rules: rules, caller: caller, appID: appID, original: url, activationToken: nil)
            .explain(url, caller: caller.rawValue, callerAppID: callerAppID)
        return (steps.map(Self.explanation), application ?? "")
    }

    /// One step's `a{sv}`: the handler's or the whole rule's entries (as
    /// `ListHandlers` and `ListRules` give them), then what it would do.
    static func explanation(_ explained: Router<HandlerEndpoint>.ExplainedStep) -> [String: Variant] {
        var entry: [String: Variant]
        switch explained.step.payload {
        case .handler(let endpoint):
            entry = explained.step.withPayload { _ in endpoint }.descriptionEntries
            entry["kind"] = Variant("handler")
        case .rule(let rule):
            entry = rule.descriptionEntries
            entry["kind"] = Variant("rule")
            entry["effect"] = explained.effect.map { Variant($0) }
        }
        let current = explained.url
        entry["url"] = Variant(current.text)
        if let host = current.host { entry["host"] = Variant(host.description) }
        switch explained.answer {
        case .rewrite(let text): entry["result-url"] = Variant(text)
        case .useDefault(let text) where text != current.text: entry["result-url"] = Variant(text)
        default: break
        }
        entry["result"] = Variant(explained.answer.resultString)
        return entry
    }
}
