/// Finds the links in plain text: URLs with a scheme, bare web addresses,
/// e-mail addresses, phone numbers and Markdown links. Pure: no I/O.
///
///     LinkDetector().links(in: "see example.org/docs, or call +1 (555) 010-9999")
///     // web 4+16 https://example.org/docs, phone 30+17 tel:+15550109999
///
/// The rules are documented, with their reasons, in docs/detect.md.
public struct LinkDetector: Sendable {
    /// The kinds to report.
    public let kinds: Set<DetectedLink.Kind>
    /// The region national phone numbers are read in (`nil`: they stay national).
    public let region: PhoneRegion?

    /// A detector reporting `kinds` (by default, every kind), reading
    /// national phone numbers as `region`'s.
    public init(kinds: Set<DetectedLink.Kind> = Set(DetectedLink.Kind.allCases), region: PhoneRegion? = nil) {
        self.kinds = kinds
        self.region = region
    }

    /// The most text `DetectLinks` takes over D-Bus, in UTF-8 bytes (1 MiB);
    /// the CLI reads longer input in blocks of whole lines.
    public static let maximumTextLength = 1 << 20

    /// The IANA top-level-domain list's version this build carries.
    public static var topLevelDomainsVersion: String { TopLevelDomains.version }

    /// The links in `text`, in order, never overlapping.
    public func links(in text: String) -> [DetectedLink] {
        var scan = TextScan(text)
        // Most specific first: a Markdown link claims its whole range, a URL
        // claims the address inside it, and so on.
        scan.findMarkdownLinks()
        scan.findSchemeURLs()
        scan.findEmailAddresses()
        scan.findBareWebAddresses()
        scan.findPhoneNumbers(region: region)
        return scan.found.filter { kinds.contains($0.kind) }.sorted { $0.offset < $1.offset }
    }
}
