import Rules
import Routing

extension Rule {
    /// What performing a rule came to.
    public struct Performance: Sendable, Equatable {
        /// The rule's answer in the walk.
        public let answer: HandlerAnswer
        /// The application it started (`Open=`, or `rule-NAME` for `Exec=`).
        public let application: String?
    }

    /// Applies the rule to `url`, launching with `opener` for `Open=` and
    /// `Exec=`. A rule that cannot do its work answers `.failed(reason)`,
    /// which the walk treats as passing, like a failing handler.
    public func perform(on url: ValidatedURL, opener: any URLOpener, activationToken: String?) async -> Performance {
        let launch: LaunchResult
        switch evaluate(url) {
        case .passOn(let result):
            return Performance(answer: result == url ? .systemAction : .rewrite(result.text), application: nil)
        case .answer(let answer, _):
            return Performance(answer: answer, application: nil)
        case .useDefault(let result):
            return Performance(answer: .useDefault(result.text), application: nil)
        case .failed(let reason):
            return Performance(answer: .failed(reason), application: nil)
        case .ask:
            // The router asks the person itself; performed alone, the rule cannot.
            return Performance(answer: .failed("Ask= needs a chooser, and none is given here"), application: nil)
        case .open(let result, let target):
            launch = await opener.open(result, with: target, activationToken: activationToken)
        case .exec(let result, let commandLine):
            launch = await opener.run(commandLine, with: result, name: "rule-" + name, activationToken: activationToken)
        }
        switch launch {
        case .opened(let application):
            return Performance(answer: .handled, application: application)
        case .noApplication(let reason), .refused(let reason), .launchFailed(_, let reason):
            return Performance(answer: .failed("could not launch: \(reason)"), application: nil)
        }
    }
}
