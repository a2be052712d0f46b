import DBus
import Routing
import Rules

extension Dispatcher {
    /// A dry run of `dispatch`: rules are applied (nothing is launched) and
    /// run-time handlers are listed as if each passed, since asking them
    /// would act. Returns each step and the application the walk would end
    /// with ("" when it would stop before the fallback, or none is set up).
    func explain(_ url: ValidatedURL, caller: BusName) async -> (steps: [[String: Variant]], application: String) {
        let rules = loadedRules.rules
        let callerAppID = rules.needsCallerAppID ? await identities.appID(of: caller) : nil
        var steps: [[String: Variant]] = []
        let result = await walk(
            url, caller: caller.rawValue,
            candidates: { url, position in candidates(for: url, caller: caller, callerAppID: callerAppID, rules: rules, outside: position) },
            ask: { step, current in
                var entry: [String: Variant]
                let answer: HandlerAnswer
                switch step.payload {
                case .endpoint(let endpoint):
                    entry = step.withPayload { _ in endpoint }.descriptionEntries
                    entry["kind"] = Variant("handler")
                    answer = .systemAction
                case .rule(let rule):
                    // The whole rule, as ListRules describes it; `effect` says
                    // what it would do to this URL.
                    entry = rule.descriptionEntries
                    entry["kind"] = Variant("rule")
                    (answer, entry["effect"]) = Self.dryRun(rule.evaluate(current))
                }
                entry["url"] = Variant(current.text)
                if let host = current.host { entry["host"] = Variant(host.description) }
                switch answer {
                case .rewrite(let text): entry["result-url"] = Variant(text)
                case .useDefault(let text) where text != current.text: entry["result-url"] = Variant(text)
                default: break
                }
                entry["result"] = Variant(answer.resultString)
                steps.append(entry)
                return answer
            })
        guard case .passedOn = result.outcome else { return (steps, "") }
        return (steps, systemDefault.application(for: result.finalURL) ?? "")
    }

    /// What a rule's effect would answer, and a description of what it would do.
    private static func dryRun(_ effect: RuleEffect) -> (HandlerAnswer, Variant) {
        switch effect {
        case .passOn(let url): (.rewrite(url.text), Variant("pass on \(url.text)"))
        case .answer(let answer, _): (answer, Variant(answer.resultString))
        case .useDefault(let url): (.useDefault(url.text), Variant("open \(url.text) with the system default, asking no one further out"))
        case .open(let url, let id): (.handled, Variant("would open \(url.text) with \(id)"))
        case .exec(let url, let commandLine): (.handled, Variant("would run \(commandLine) with \(url.text)"))
        case .failed(let reason): (.failed(reason), Variant("fails: \(reason)"))
        }
    }
}
