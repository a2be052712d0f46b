import Routing

/// The enabled rules, indexed like run-time handlers so that a thousand
/// rules for other hosts cost a URL about what none do.
///
/// Rules take part in the walk as session-scoped handlers of their
/// priority; at equal priority they come after run-time handlers (see
/// `WalkPosition`), and among themselves in load order: files by name,
/// then top to bottom.
public struct RuleSet: Sendable {
    /// The most rules loaded at once; more are reported and ignored.
    public static let maximumCount = 10_000

    /// Every loaded rule, enabled or not, in load order.
    public var all: [Rule] { storage.all }
    /// Whether any enabled rule has `Callers=`, so the walk needs the caller's app ID up front.
    public var needsCallerAppID: Bool { storage.needsCallerAppID }

    /// Everything, shared and never changed: every walk copies the set it
    /// starts with, and a copy is then one retain, not one for each table
    /// of the index.
    private final class Storage: Sendable {
        let all: [Rule]
        let registry: HandlerRegistry<Rule>
        let needsCallerAppID: Bool

        init(all: [Rule], registry: HandlerRegistry<Rule>, needsCallerAppID: Bool) {
            self.all = all
            self.registry = registry
            self.needsCallerAppID = needsCallerAppID
        }
    }
    private let storage: Storage

    /// A set of `rules`, indexed for matching as run-time handlers are.
    public init(_ rules: [Rule] = []) {
        let enabled = rules.filter(\.isEnabled).prefix(Self.maximumCount)
        var registry = HandlerRegistry<Rule>(
            // Rule files are bounded by their own limits (count, file size);
            // ListRules' reply is kept within the bus's by the D-Bus layer.
            limits: .init(perOwner: Self.maximumCount, total: Self.maximumCount, specBytesPerOwner: .max, specBytesTotal: .max),
            holdsConfigured: true)
        // Later registrations are asked first; registering from the end makes
        // the first rule in load order the first asked.
        for rule in enabled.reversed() {
            _ = try? registry.register(rule.spec, owner: "", payload: rule)
        }
        storage = Storage(all: rules, registry: registry, needsCallerAppID: enabled.contains { !$0.callers.isEmpty })
    }

    /// The number of enabled rules.
    public var count: Int { storage.registry.count }

    /// The rules whose conditions hold for `url` opened by an app with
    /// `callerAppID`, innermost first, strictly outside `position` if given.
    public func candidates(for url: ValidatedURL, callerAppID: String?, outside position: WalkPosition? = nil) -> [Handler<Rule>] {
        // Most sessions have no rules: every walk asks, so skip the lookup's allocations.
        guard storage.registry.count > 0 else { return [] }
        return storage.registry.candidates(for: url, caller: "", outside: position).filter {
            $0.payload.applies(to: url, callerAppID: callerAppID)
        }
    }
}
