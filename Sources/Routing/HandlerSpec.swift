/// What a handler wants to be asked about, and how it ranks.
public struct HandlerSpec: Hashable, Sendable {
    /// Whom a handler answers for.
    public enum Scope: String, Sendable, CaseIterable {
        /// Asked for every caller's URLs.
        case session
        /// Asked only for URLs its own owner opens.
        case caller
    }

    /// Lowercase schemes, or `["*"]` for any scheme.
    public let schemes: [String]
    /// Host patterns; empty means any host, including none.
    public let hosts: [HostPattern]
    /// Path globs; empty means any path.
    public let paths: [PathGlob]
    public let priority: Int32
    public let scope: Scope
    /// A name for people: shown by `ListHandlers`, `Explain` and the logs.
    public let name: String

    /// Validates a spec.
    /// - Throws: `RoutingError.invalidSpec` naming the offending entry.
    public init(
        schemes: [String], hosts: [String] = [], paths: [String] = [], priority: Int32 = 0,
        scope: Scope = .session, name: String = ""
    ) throws(RoutingError) {
        guard !schemes.isEmpty else { throw RoutingError(.invalidSpec, "schemes must not be empty") }
        if schemes.contains("*") && schemes.count > 1 {
            throw RoutingError(.invalidSpec, "'*' matches every scheme and cannot be combined with others")
        }
        for scheme in schemes where scheme != "*" && !isValidScheme(scheme) {
            throw RoutingError(.invalidSpec, "'\(scheme.prefix(64))' is not a valid scheme")
        }
        if name.utf8.count > 256 { throw RoutingError(.invalidSpec, "name is longer than 256 bytes") }
        if schemes.count > 64 || hosts.count > 256 || paths.count > 256 {
            throw RoutingError(.invalidSpec, "a spec may list at most 64 schemes, 256 hosts and 256 paths")
        }
        var hostPatterns: [HostPattern] = []
        for host in hosts { hostPatterns.append(try HostPattern(host)) }
        var pathGlobs: [PathGlob] = []
        for path in paths { pathGlobs.append(try PathGlob(path)) }
        self.schemes = Array(Set(schemes.map { $0.lowercased() })).sorted()
        self.hosts = hostPatterns
        self.paths = pathGlobs
        self.priority = priority
        self.scope = scope
        self.name = name
    }

    /// Whether this spec matches `url` (scheme, host and path).
    public func matches(_ url: ValidatedURL) -> Bool {
        (schemes == ["*"] || schemes.contains(url.scheme))
            && (hosts.isEmpty || hosts.contains { $0.matches(url.host) })
            && (paths.isEmpty || paths.contains { $0.matches(url.path) })
    }
}

/// `example.com` (exactly that host) or `*.example.com` (any subdomain, not
/// `example.com` itself). Compared case-insensitively; `[::1]` for IPv6.
public struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    /// The host or, for a wildcard, the domain below which subdomains match.
    public let domain: String
    public let isWildcard: Bool

    public init(_ text: String) throws(RoutingError) {
        let lower = text.lowercased()
        let wildcard = lower.hasPrefix("*.")
        let domain = wildcard ? String(lower.dropFirst(2)) : lower
        let problem: String? =
            if domain.isEmpty { "is empty" }
            else if domain.utf8.count > 253 + 2 { "is longer than a host name can be" }
            else if domain.contains("*") { "may only use '*' as its whole first label ('*.example.com')" }
            else if domain.contains(where: { " /?#@\\%".contains($0) || $0.isNewline }) { "contains a character hosts cannot have" }
            else { nil }
        if let problem { throw RoutingError(.invalidSpec, "host pattern '\(text.prefix(64))' \(problem)") }
        self.domain = domain.hasPrefix("[") && domain.hasSuffix("]") ? String(domain.dropFirst().dropLast()) : domain
        self.isWildcard = wildcard
    }

    public func matches(_ host: URLHost?) -> Bool {
        switch host {
        case .name(let name)?:
            isWildcard ? Self.isSubdomain(name.utf8, of: domain.utf8) : name == domain
        case .ipv6(let address)?:
            !isWildcard && address == domain
        case .invalid?, nil:
            false
        }
    }

    public var description: String { isWildcard ? "*." + domain : domain }

    /// `name` ends with `.` + `domain` and is longer than that: byte-wise,
    /// since both are lowercased UTF-8 and grapheme rules do not apply to hosts.
    private static func isSubdomain(_ name: String.UTF8View, of domain: String.UTF8View) -> Bool {
        guard name.count > domain.count + 1 else { return false }
        let start = name.index(name.endIndex, offsetBy: -domain.count)
        return name[name.index(before: start)] == UInt8(ascii: ".") && name[start...].elementsEqual(domain)
    }
}
