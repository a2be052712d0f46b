import Routing

extension Rule {
    /// What the rule does, for people: `Explain`, `ListRules`, `openurl rules` and the logs.
    public var effectDescription: String {
        var parts: [String] = []
        if !stripQuery.isEmpty { parts.append("strip \(stripQuery.map(\.description).joined(separator: ","))") }
        if let rewrite { parts.append("rewrite to \(rewrite)") }
        switch action {
        case .open(let id)?: parts.append("open with \(id)")
        case .exec(let commandLine)?: parts.append("run \(commandLine)")
        case .result(let answer)?: parts.append("answer \(answer.resultString)")
        case .useDefault?: parts.append("open with the system default")
        case .ask(let targets)?:
            parts.append(targets.isEmpty ? "ask, offering every target" : "ask, offering \(targets.map(\.description).joined(separator: ","))")
        case nil: break
        }
        return parts.joined(separator: ", then ")
    }
}

extension HandlerAnswer {
    /// `handled`, `discarded` or `systemAction`, as on the wire.
    public var resultString: String {
        switch self {
        case .handled: HandlerReply.handled.word
        // Undecided stops the walk without opening, as a discard does.
        case .discarded, .undecided: HandlerReply.discarded.word
        case .systemAction, .rewrite, .useDefault, .failed: HandlerReply.systemAction.word
        }
    }
}
