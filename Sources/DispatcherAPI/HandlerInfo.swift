import DBus

extension DispatcherAPI {
    /// A registered handler, as `ListHandlers` lists it and `Explain` shows
    /// it: its id and owner, and what it matches (`HandlerMatch`'s keys).
    public struct HandlerInfo: Sendable, Equatable {
        /// The dispatcher's id for it, which `UnregisterHandler` takes.
        public let id: UInt32
        /// The unique bus name of the connection that registered it.
        public let owner: String
        /// The name it was registered with, for people.
        public let name: String
        /// The schemes it matches (`*`: all).
        public let schemes: [String]
        /// The hosts it matches (`*.domain` for subdomains; empty: any).
        public let hosts: [String]
        /// The path globs it matches (empty: any).
        public let paths: [String]
        /// Higher is asked first.
        public let priority: Int32
        /// `session` or `caller`.
        public let scope: String

        /// The handler `id`, registered by `owner` for `match`.
        public init(id: UInt32, owner: String, match: HandlerMatch) {
            self.id = id
            self.owner = owner
            (name, schemes, hosts, paths, priority, scope) = (match.name, match.schemes, match.hosts, match.paths, match.priority, match.scope.rawValue)
        }

        /// The `ListHandlers` entry.
        public var listing: [String: Variant] {
            var entry = HandlerMatch(
                schemes: schemes, hosts: hosts, paths: paths, priority: priority, scope: HandlerMatch.Scope(rawValue: scope) ?? .session,
                name: name
            ).listing
            entry["id"] = Variant(id)
            entry["owner"] = Variant(owner)
            return entry
        }

        /// Reads an entry leniently, as a client may.
        public init(listed entry: [String: Variant]) {
            self.init(id: entry["id"]?.get(UInt32.self) ?? 0, owner: entry["owner"]?.get(String.self) ?? "", match: HandlerMatch(listed: entry))
        }
    }

    /// One step of `Explain`'s dry run: the handler's or the rule's own
    /// entry, then the URL it would be asked about, the host as a browser
    /// reads it, what it would answer and the URL it would pass on.
    public struct ExplainStep: Sendable, Equatable {
        /// Set for a run-time handler.
        public let handler: HandlerInfo?
        /// Set for a rule.
        public let rule: RuleInfo?
        /// The URL it would be asked about.
        public let url: String
        /// `handled`, `discarded` or `systemAction`.
        public let result: String
        /// The URL it passes on, when it rewrites.
        public let resultURL: String?
        /// The host it was matched against, as a browser reads it.
        public let host: String?

        /// A step of `handler` or `rule` (one is set), asked about `url`, and what it would do.
        public init(handler: HandlerInfo?, rule: RuleInfo?, url: String, result: String, resultURL: String?, host: String?) {
            self.handler = handler
            self.rule = rule
            self.url = url
            self.result = result
            self.resultURL = resultURL
            self.host = host
        }

        /// The entry `Explain` returns: `kind` says which of the two it is.
        public var listing: [String: Variant] {
            var entry = rule?.listing ?? handler?.listing ?? [:]
            entry["kind"] = Variant(rule != nil ? "rule" : "handler")
            entry["url"] = Variant(url)
            entry["result"] = Variant(result)
            if let resultURL { entry["result-url"] = Variant(resultURL) }
            if let host { entry["host"] = Variant(host) }
            return entry
        }

        /// Reads an entry leniently, as a client may.
        public init(listed entry: [String: Variant]) {
            let isRule = entry["kind"]?.get(String.self) == "rule"
            self.init(
                handler: isRule ? nil : HandlerInfo(listed: entry), rule: isRule ? RuleInfo(listed: entry) : nil,
                url: entry["url"]?.get(String.self) ?? "", result: entry["result"]?.get(String.self) ?? "",
                resultURL: entry["result-url"]?.get(String.self), host: entry["host"]?.get(String.self))
        }
    }
}
