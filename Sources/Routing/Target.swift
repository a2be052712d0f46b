/// Where a URL can be sent: an application, one of its desktop actions, or
/// a browser profile. One notion for rules' `Open=`, `openurl targets` and
/// (later) the chooser, written as
///
///     firefox.desktop                     the application
///     firefox.desktop:new-private-window  its [Desktop Action new-private-window]
///     firefox.desktop@work                its profile named "work"
public enum Target: Hashable, Sendable, CustomStringConvertible {
    case application(String)
    case action(String, action: String)
    case profile(String, profile: String)

    /// Reads the written form; `nil` unless the ID ends in `.desktop` and
    /// has no `/`, and an action or profile name is not empty.
    public init?(_ text: String) {
        func id(_ part: Substring) -> String? {
            part.hasSuffix(".desktop") && part.count > 8 && !part.contains("/") ? String(part) : nil
        }
        if let at = text.firstIndex(of: "@") {
            guard let application = id(text[..<at]), text.index(after: at) < text.endIndex else { return nil }
            self = .profile(application, profile: String(text[text.index(after: at)...]))
        } else if let colon = text.lastIndex(of: ":"), text[colon...].count > 1, text[..<colon].hasSuffix(".desktop") {
            guard let application = id(text[..<colon]) else { return nil }
            self = .action(application, action: String(text[text.index(after: colon)...]))
        } else {
            guard let application = id(text[...]) else { return nil }
            self = .application(application)
        }
    }

    /// The desktop-file ID of the application it belongs to.
    public var applicationID: String {
        switch self {
        case .application(let id), .action(let id, _), .profile(let id, _): id
        }
    }

    public var description: String {
        switch self {
        case .application(let id): id
        case .action(let id, let action): id + ":" + action
        case .profile(let id, let profile): id + "@" + profile
        }
    }
}
