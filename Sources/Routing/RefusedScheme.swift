/// The schemes whose URLs carry code or content, never a place to go:
/// openurld never launches them (`LaunchGate`) and never makes links of
/// them (`LinkDetector`). One list for both.
public enum RefusedScheme: CaseIterable, Sendable {
    case javascript, vbscript, data

    /// The scheme `scheme` names, if refused. Asked of every URL the
    /// daemon is given, twice: the length picks the one name to compare
    /// (a switch over the three compared them in turn, a string comparison
    /// each, where a dictionary hashed the scheme and `RawRepresentable`
    /// searched a table).
    public init?(_ scheme: String) {
        let refused: RefusedScheme
        switch scheme.utf8.count {
        case 10: refused = .javascript
        case 8: refused = .vbscript
        case 4: refused = .data
        default: return nil
        }
        guard scheme == refused.name else { return nil }
        self = refused
    }

    /// The scheme, as URLs spell it.
    public var name: String {
        switch self {
        case .javascript: "javascript"
        case .vbscript: "vbscript"
        case .data: "data"
        }
    }

    /// Why, for people.
    public var reason: String {
        switch self {
        case .javascript: "javascript: URLs run code in whatever opens them; openurld never opens them"
        case .vbscript: "vbscript: URLs run code in whatever opens them; openurld never opens them"
        case .data: "data: URLs carry their own content, possibly a page with scripts; openurld never opens them"
        }
    }
}
