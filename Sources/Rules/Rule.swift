import LinearRegex
import Routing
import XDG

/// One `[Rule NAME]` group of a rule file: conditions, then effects.
public struct Rule: Sendable {
    /// What a rule does once its conditions hold, after stripping and rewriting.
    public enum Action: Sendable, Equatable {
        /// `Open=`: open the URL with this target, bypassing the defaults.
        case open(Target)
        /// `Exec=`: run this command line (desktop-entry Exec syntax, no shell).
        case exec(commandLine: String)
        /// `Result=`: answer like a handler would.
        case result(HandlerAnswer)
        /// `Result=default`: open with the system default now, asking no
        /// handler or rule further out.
        case useDefault
        /// `Ask=`: ask the person, offering these targets (empty: every
        /// target set up for the URL's scheme).
        case ask(targets: [Target])
    }

    /// The `NAME` of `[Rule NAME]`.
    public let name: String
    /// Where it was defined.
    public let source: RuleSource
    /// `Schemes=`, `Hosts=`, `Paths=` and `Priority=`, as for a run-time handler.
    public let spec: HandlerSpec
    /// `Match=`: a pattern that must match somewhere in the URL (anchor it
    /// with `^…$` for the whole URL); its groups feed `Rewrite=`.
    public let pattern: LinearRegex?
    /// `Callers=`: globs over the calling application's ID; empty means anyone.
    public let callers: [PathGlob]
    /// `StripQuery=`: globs over query-parameter names to remove.
    public let stripQuery: [PathGlob]
    /// `Rewrite=`: the URL to pass on instead, from `Match=`'s groups.
    public let rewrite: URLTemplate?
    /// What the rule does when it matches (`Result=`, `Open=`, `Exec=`, `Ask=`), if anything beyond rewriting.
    public let action: Action?
    /// `Enabled=`: whether the rule takes part in walks.
    public let isEnabled: Bool

    /// Whether the rule's conditions beyond the spec hold: its pattern, and
    /// the caller's application ID (`nil`: not known, so `Callers=` fails).
    public func applies(to url: ValidatedURL, callerAppID: String?) -> Bool {
        if !callers.isEmpty {
            guard let callerAppID, callers.contains(where: { $0.matches(callerAppID) }) else { return false }
        }
        return pattern?.matches(url.text) ?? true
    }

    /// What the rule does to `url`; pure, so `Explain` can show it without
    /// launching anything.
    public func evaluate(_ url: ValidatedURL) -> RuleEffect {
        var text = strippingQuery(url.text, parameters: stripQuery)
        if let rewrite {
            // Groups come from the URL being rewritten, i.e. after stripping,
            // and from the URL the rule was asked about if stripping broke the match.
            let match = pattern.flatMap { $0.firstMatch(in: text) ?? $0.firstMatch(in: url.text) }
            text = rewrite.expand(match: match, url: text)
        }
        let result: ValidatedURL
        do {
            result = try ValidatedURL(text)
        } catch {
            // Not the URL itself: this reason is logged, and only scheme and host may be.
            return .failed("the rewritten URL is not valid: \(error.message)")
        }
        switch action {
        case nil, .result(.systemAction)?:
            return .passOn(result)
        case .result(let answer)?:
            return .answer(answer, result)
        case .open(let target)?:
            return .open(result, with: target)
        case .exec(let commandLine)?:
            return .exec(result, commandLine: commandLine)
        case .useDefault?:
            return .useDefault(result)
        case .ask(let targets)?:
            return .ask(result, targets: targets)
        }
    }
}

/// What a rule does to one URL.
public enum RuleEffect: Sendable, Equatable {
    /// Pass this URL outward (changed or not).
    case passOn(ValidatedURL)
    /// Stop with this answer (`handled` or `discarded`) for this URL.
    case answer(HandlerAnswer, ValidatedURL)
    /// Open this URL with this target; `handled` once it started.
    case open(ValidatedURL, with: Target)
    /// Run this command line with this URL; `handled` once it started.
    case exec(ValidatedURL, commandLine: String)
    /// Stop asking: the system default opens this URL.
    case useDefault(ValidatedURL)
    /// Ask the person about this URL, offering these targets (empty: all).
    case ask(ValidatedURL, targets: [Target])
    /// The rule could not do its work; it passes, like a failing handler.
    case failed(String)
}

extension RuleEffect {
    /// What the effect would do, in words, as `Explain` says it.
    public var explanation: String {
        switch self {
        case .passOn(let url): "pass on \(url.text)"
        case .answer(let answer, _): answer.resultString
        case .useDefault(let url): "open \(url.text) with the system default, asking no one further out"
        case .open(let url, let target): "would open \(url.text) with \(target)"
        case .exec(let url, let commandLine): "would run \(commandLine) with \(url.text)"
        case .failed(let reason): "fails: \(reason)"
        case .ask(let url, let targets):
            "would ask the person about \(url.text), offering "
                + (targets.isEmpty ? "every target for \(url.scheme):" : targets.map(\.description).joined(separator: ", "))
        }
    }
}

/// Where a rule was defined.
public struct RuleSource: Sendable, Hashable, CustomStringConvertible {
    /// The rule file.
    public let path: String
    /// The line, from 1.
    public let line: Int
    /// Line `line` of the file at `path`.
    public init(path: String, line: Int) {
        self.path = path
        self.line = line
    }
    public var description: String { "\(path):\(line)" }
}

/// A problem with a rule, for people; `RuleDiagnostic` adds where.
public struct RuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    /// A problem described by `description`.
    public init(_ description: String) { self.description = description }
}

/// A problem found while loading rules: `file:line: reason`.
public struct RuleDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the problem is.
    public let source: RuleSource
    /// What the problem is.
    public let reason: String
    /// A problem `reason` at `source`.
    public init(_ source: RuleSource, _ reason: String) {
        self.source = source
        self.reason = reason
    }
    public var description: String { "\(source): \(reason)" }
}
