import DBus
import Glibc
import Routing

extension DispatcherAPI {
    /// The well-known name of the chooser service, which asks the person.
    public static let chooserBusName: BusName = "org.openurld.Chooser1"
    /// The object that serves `org.openurld.Chooser1`.
    public static let chooserObjectPath: ObjectPath = "/org/openurld/Chooser1"
    /// The chooser's interface: `Choose`.
    public static let chooserInterface: InterfaceName = "org.openurld.Chooser1"
    /// `org.openurld.Chooser1.Choose`.
    public static let chooseMember: MemberName = "Choose"
    /// The chooser's own desktop-file ID (its preferences window).
    public static let chooserDesktopID = "org.openurld.Chooser1.desktop"

    /// `Choose(s url, aa{sv} targets, a{sv} options) -> (u response, a{sv} results)`,
    /// shaped like the portal backend's `AppChooser.ChooseApplication`:
    /// written by the daemon, read by every chooser.
    public struct ChooserRequest: Sendable, Equatable {
        /// The question: the URL, the targets to offer, and how to ask.
        public var choice: ChoiceRequest
        /// How long the daemon waits for the answer: the chooser closes its
        /// window by then, since a later answer would be ignored.
        public var timeout: Duration?
        /// When openurld stops waiting, as `CLOCK_MONOTONIC` microseconds
        /// (the clock every process of the session shares): sent as `now +
        /// timeout` with the call, so a chooser that took a second to start
        /// still knows the daemon's own deadline.
        public var deadline: UInt64?

        /// A request for `choice`, answered within `timeout` (`nil`: no limit is sent).
        public init(_ choice: ChoiceRequest, timeout: Duration? = nil) {
            self.choice = choice
            self.timeout = timeout
            deadline = timeout.map { Self.monotonicMicroseconds() &+ UInt64(clamping: $0.microseconds) }
        }

        /// How long the chooser may wait for the person from `now`: until
        /// `answerMargin` before openurld stops waiting (the earlier of the
        /// deadline and the timeout counted from now), so that its
        /// "unanswered" reaches openurld while it still listens; `nil` when
        /// openurld gave no limit.
        public func answerTime(now: UInt64 = monotonicMicroseconds()) -> Duration? {
            var left = timeout
            // A deadline in the past is taken as now; one past the timeout
            // (another clock, a clock namespace) is not believed.
            if let deadline, timeout.map({ deadline <= now &+ UInt64(clamping: $0.microseconds) }) ?? true {
                let fromDeadline = Duration.microseconds(Int64(clamping: deadline > now ? deadline - now : 0))
                left = left.map { min($0, fromDeadline) } ?? fromDeadline
            }
            return left.map { max(.zero, $0 - DispatcherAPI.answerMargin) }
        }

        /// `CLOCK_MONOTONIC` now, in microseconds.
        public static func monotonicMicroseconds() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1000)
        }

        /// The call's arguments.
        public var arguments: [Value] {
            let targets: [[String: Variant]] = choice.candidates.map {
                ["id": Variant($0.target.description), "name": Variant($0.name), "icon": Variant($0.icon), "kind": Variant($0.kind.rawValue)]
            }
            var options: [String: Variant] = [:]
            if let token = choice.activationToken { options[OptionKey.activationToken] = Variant(token) }
            if let app = choice.callerAppID, !app.isEmpty { options[OptionKey.callerAppID] = Variant(app) }
            if let rule = choice.rule { options[OptionKey.rule] = Variant(rule) }
            if let linkText = choice.linkText { options[OptionKey.linkText] = Variant(linkText) }
            if choice.omitted > 0 { options[OptionKey.omittedTargets] = Variant(UInt32(clamping: choice.omitted)) }
            if let application = choice.defaultApplication {
                options[OptionKey.defaultTarget] = Variant(application.target.description)
                options[OptionKey.defaultName] = Variant(application.name)
            }
            options[OptionKey.remember] = Variant(choice.remember != nil)
            if let timeout { options[OptionKey.timeout] = Variant(UInt32(clamping: timeout.components.seconds)) }
            if let deadline { options[OptionKey.deadline] = Variant(deadline) }
            if let remember = choice.remember {
                options[OptionKey.rememberHost] = Variant(remember.host)
                if let domain = remember.domain { options[OptionKey.rememberDomain] = Variant(domain) }
            }
            return [.string(choice.url.text), targets.dbusValue, options.dbusValue]
        }

        /// Reads a call, as a chooser does.
        /// - Throws: `InvalidArgs` naming what is wrong: the signature, the URL, a target.
        public init(arguments: [Value]) throws(DBusError) {
            let (text, listed, options) = try arguments.decode(String.self, [[String: Variant]].self, [String: Variant].self)
            let url: ValidatedURL
            do { url = try ValidatedURL(text) } catch { throw .invalidArgs("url: \(error.message)") }
            let most = ChoiceRequest.maximumCandidates
            guard !listed.isEmpty, listed.count <= most else { throw .invalidArgs("targets: give 1 to \(most) targets, not \(listed.count)") }
            var candidates: [ChooserCandidate] = []
            for entry in listed {
                guard let id = entry["id"]?.get(String.self), let target = Target(id) else {
                    throw .invalidArgs("targets: every entry needs an 'id' that is a target (ID, ID:ACTION or ID@PROFILE)")
                }
                candidates.append(ChooserCandidate(
                    target: target, name: entry["name"]?.get(String.self) ?? id, icon: entry["icon"]?.get(String.self) ?? ""))
            }
            let mayRemember = options[OptionKey.remember]?.get(Bool.self) ?? false
            let host = options[OptionKey.rememberHost]?.get(String.self)
            choice = ChoiceRequest(
                url: url, candidates: candidates, activationToken: options[OptionKey.activationToken]?.get(String.self),
                callerAppID: options[OptionKey.callerAppID]?.get(String.self), rule: options[OptionKey.rule]?.get(String.self),
                remember: mayRemember ? host.map { RememberTargets(host: $0, domain: options[OptionKey.rememberDomain]?.get(String.self)) } : nil,
                linkText: options[OptionKey.linkText]?.get(String.self))
            // Read into locals first: `?.get(UInt32.self).map(…)` here crashes
            // Swift 6.3.1's optimizer in release builds ("Found outside of
            // lifetime use", ownership verifier) since `Value` keeps scalars inline.
            let omitted: UInt32? = options[OptionKey.omittedTargets]?.get()
            choice.omitted = omitted.map(Int.init) ?? 0
            if let written = options[OptionKey.defaultTarget]?.get(String.self) {
                guard let target = Target(written) else { throw .invalidArgs("default-target is not a target (ID, ID:ACTION or ID@PROFILE)") }
                choice.defaultApplication = ChooserCandidate(
                    target: target, name: options[OptionKey.defaultName]?.get(String.self) ?? written,
                    icon: candidates.first { $0.target == target }?.icon ?? "")
            }
            let seconds: UInt32? = options[OptionKey.timeout]?.get()
            timeout = seconds.map { .seconds(Int64($0)) }
            deadline = options[OptionKey.deadline]?.get(UInt64.self)
        }
    }

    /// How long before openurld stops waiting a chooser gives up asking and
    /// answers "unanswered": time for the answer to cross the bus.
    public static let answerMargin: Duration = .milliseconds(250)

    /// `Choose`'s reply: `response` 0 = a target was chosen, 1 = cancelled,
    /// 2 = use the default, 3 = the person did not answer in time; `results`
    /// has `target`, `url`, `activation-token`, `remember`.
    public enum ChooserReply: Sendable, Equatable {
        case chosen(Target, url: String, activationToken: String?, remember: RememberScope)
        case cancelled
        case useDefault
        /// The person did not answer before openurld stopped waiting; the
        /// window closed. Nothing is opened, as when openurld's wait runs out.
        case unanswered

        /// The reply's arguments.
        public var arguments: [Value] {
            switch self {
            case .chosen(let target, let url, let token, let remember):
                var results: [String: Variant] = ["target": Variant(target.description), "url": Variant(url), OptionKey.remember: Variant(remember.rawValue)]
                if let token { results[OptionKey.activationToken] = Variant(token) }
                return [.uint32(0), results.dbusValue]
            case .cancelled: return [.uint32(1), [String: Variant]().dbusValue]
            case .useDefault: return [.uint32(2), [String: Variant]().dbusValue]
            case .unanswered: return [.uint32(3), [String: Variant]().dbusValue]
            }
        }

        /// Reads a reply to a request about `requested`.
        /// - Throws: `InvalidArgs` saying what is wrong with it.
        public init(reply: [Value], requested: String) throws(DBusError) {
            guard let (response, results) = try? reply.decode(UInt32.self, [String: Variant].self) else {
                throw .invalidArgs("replied with signature '\(reply.signature)' instead of 'ua{sv}'")
            }
            switch response {
            case 0:
                guard let written = results["target"]?.get(String.self), let target = Target(written) else {
                    throw .invalidArgs("chose without a valid 'target'")
                }
                let remember = results[OptionKey.remember]?.get(String.self).map { RememberScope(rawValue: $0) } ?? RememberScope.none
                guard let remember else { throw .invalidArgs("replied with an unknown 'remember' scope") }
                self = .chosen(target, url: results["url"]?.get(String.self) ?? requested,
                               activationToken: results[OptionKey.activationToken]?.get(String.self), remember: remember)
            case 1: self = .cancelled
            case 2: self = .useDefault
            case 3: self = .unanswered
            default: throw .invalidArgs("replied with unknown response \(response)")
            }
        }
    }
}

extension Duration {
    /// Whole microseconds, clamped at zero.
    fileprivate var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(0, seconds.multipliedReportingOverflow(by: 1_000_000).overflow ? .max : seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }
}
