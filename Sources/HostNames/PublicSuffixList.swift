/// The Public Suffix List's rules (publicsuffix.org), for finding a host's
/// registrable domain: the public suffix and one label more
/// (`docs.example.co.uk` → `example.co.uk`).
///
/// The list itself is data the system provides (Debian's `publicsuffix`
/// package); this type reads its text.
public struct PublicSuffixList: Sendable {
    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// Reads the list's text: one rule per line, `//` comments, `*.` wildcards, `!` exceptions.
    /// Rules are taken in their ASCII (Punycode) form, as hosts are compared.
    public init(_ text: String) {
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first, !word.hasPrefix("//") else { continue }
            var rule = String(word)
            let isException = rule.hasPrefix("!"), isWildcard = !isException && rule.hasPrefix("*.")
            rule.removeFirst(isException ? 1 : isWildcard ? 2 : 0)
            guard case .success(.domain(let ascii)) = HostName.parse(rule) else { continue }
            if isException { exceptions.insert(ascii) } else if isWildcard { wildcards.insert(ascii) } else { rules.insert(ascii) }
        }
    }

    /// The registrable domain of a normalised host; `nil` for an IP address,
    /// a host that is itself a public suffix, or a single label.
    public func registrableDomain(of host: String) -> String? {
        guard case .success(.domain(let name)) = HostName.parse(host) else { return nil }
        let host = HostName.domain(name).matchingKey
        let labels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // The public suffix is the longest matching rule; no rule matching means the last label ("*").
        var suffixLength = 1
        for start in labels.indices {
            let candidate = labels[start...].joined(separator: ".")
            let length = labels.count - start
            if exceptions.contains(candidate) {
                suffixLength = length - 1
                break
            }
            if rules.contains(candidate) { suffixLength = max(suffixLength, length) }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                suffixLength = max(suffixLength, length)
            }
        }
        guard labels.count > suffixLength else { return nil }
        return labels[(labels.count - suffixLength - 1)...].joined(separator: ".")
    }
}
