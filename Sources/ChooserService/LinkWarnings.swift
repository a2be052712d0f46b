import HostNames
import Routing

/// What the chooser shows of a URL: the text split around its host, so the
/// host can be emphasised, and the warnings that matter before opening it.
/// Pure: tested from tables.
public struct LinkPresentation: Sendable, Equatable {
    /// The URL's text before the host (scheme, `//`, any user-info).
    public let beforeHost: String
    /// The host as written in the URL (empty when it has none); an
    /// internationalised one as `HostDisplay` shows it.
    public let host: String
    /// The rest: port, path, query, fragment.
    public let afterHost: String
    /// What the person should know before opening it, most important first.
    public let warnings: [LinkWarning]

    /// The presentation of `url`, clicked as `linkText` when the caller passed it.
    public init(_ url: ValidatedURL, linkText: String? = nil) {
        // Decided once: the host line and every warning show the host alike.
        let display: HostDisplay? = if case .name(let ascii)? = url.host { HostDisplay(ascii) } else { nil }
        let text = url.text
        var before = text
        var host = ""
        var after = ""
        var userInfo: String?
        if let marker = text.firstRange(of: "://") {
            let authorityStart = marker.upperBound
            let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
            let authority = text[authorityStart..<authorityEnd]
            var hostStart = authorityStart
            if let at = authority.lastIndex(of: "@") {
                userInfo = String(authority[..<at])
                hostStart = text.index(after: at)
            }
            let hostPart = text[hostStart..<authorityEnd]
            let hostEnd: String.Index = if hostPart.hasPrefix("[") {
                hostPart.firstIndex(of: "]").map { text.index(after: $0) } ?? authorityEnd
            } else {
                hostPart.firstIndex(of: ":") ?? authorityEnd
            }
            before = String(text[..<hostStart])
            host = String(text[hostStart..<hostEnd])
            after = String(text[hostEnd...])
            // An internationalised host is shown as the display policy says,
            // whichever form the link was written in: never a look-alike in Unicode.
            if let display, display.isInternational { host = display.shown }
        }
        beforeHost = before
        self.host = host
        afterHost = after
        warnings = LinkWarning.all(for: url, display: display, userInfo: userInfo, linkText: linkText)
    }
}

extension LinkPresentation {
    /// The link in about `limit` characters, for a menu's prompt: what is
    /// before the host and the host whole (the part that says where it goes),
    /// the rest cut in the middle with "…".
    public func shortened(to limit: Int) -> String {
        let head = beforeHost + host
        guard head.count + afterHost.count > limit else { return head + afterHost }
        let room = max(limit - head.count - 1, 12)
        let front = afterHost.prefix(room * 2 / 3)
        return head + front + "…" + afterHost.suffix(room - front.count)
    }
}

/// A reason to look twice at a link before opening it.
public enum LinkWarning: Sendable, Equatable {
    /// `http:`: anyone on the network can read and change the page.
    case notEncrypted
    /// User-info before the host: `https://bank.example@evil.example/` goes to `evil.example`.
    case userInfo(shown: String, host: String)
    /// The host has internationalised labels, shown in Unicode; `ascii` is its DNS name.
    case internationalHost(ascii: String)
    /// The host is made to look like `readsAs`, which it is not; it is shown as `ascii`.
    case lookAlike(readsAs: String, ascii: String)
    /// The host's letters come from scripts that real names do not mix (a homograph trick).
    case mixedScripts
    /// A label's letters are all `script` letters that read as Latin ones, though
    /// no whole Latin name can be named; it is shown in ASCII.
    case lookAlikeLetters(script: String)
    /// The host has characters no browser shows in an address.
    case unusualCharacters
    /// The link's text names another host than the one it goes to.
    case textDiffers(shown: String, host: String)

    /// The warning as a sentence for the window.
    public var message: String {
        switch self {
        case .notEncrypted: "Not encrypted: this link uses plain HTTP."
        case .userInfo(let shown, let host): "“\(shown)” before the @ is not where this link goes: it goes to \(host)."
        case .internationalHost(let ascii): "The host is an international name; in ASCII it is \(ascii)."
        case .lookAlike(let readsAs, let ascii): "This is not \(readsAs): its letters only look like it. Its real name is \(ascii)."
        case .mixedScripts: "The host mixes letters of different alphabets, as look-alike addresses do; it is shown in ASCII."
        case .unusualCharacters: "The host has characters browsers do not show in addresses; it is shown in ASCII."
        case .lookAlikeLetters(let script): "The host has a part written in \(script) letters that look like Latin ones; it is shown in ASCII."
        case .textDiffers(let shown, let host): "The link's text shows \(shown), but it goes to \(host)."
        }
    }

    /// The warning in a few words, for a menu's one-line prompt.
    public var brief: String {
        switch self {
        case .notEncrypted: "not encrypted"
        case .userInfo(_, let host): "goes to \(host)"
        case .internationalHost(let ascii): "international name (\(ascii))"
        case .lookAlike(let readsAs, _): "NOT \(readsAs)"
        case .mixedScripts: "mixed alphabets"
        case .unusualCharacters: "unusual characters"
        case .lookAlikeLetters: "look-alike letters"
        case .textDiffers(let shown, let host): "text says \(shown), goes to \(host)"
        }
    }

    /// - Parameter display: how the URL's host (a name) is shown; `nil` for an address.
    static func all(for url: ValidatedURL, display: HostDisplay?, userInfo: String?, linkText: String?) -> [LinkWarning] {
        var warnings: [LinkWarning] = []
        // Hosts named in warnings as the window shows them: never a look-alike in Unicode.
        let host = display?.shown ?? url.host?.description ?? ""
        if url.scheme == "http" { warnings.append(.notEncrypted) }
        if let userInfo, !userInfo.isEmpty { warnings.append(.userInfo(shown: userInfo, host: host)) }
        if let display {
            if let readsAs = display.readsAs { warnings.append(.lookAlike(readsAs: readsAs, ascii: display.ascii)) }
            switch display.problem {
            case .mixedScripts?: warnings.append(.mixedScripts)
            case .unusualCharacters?: warnings.append(.unusualCharacters)
            // A look-alike label beside a Unicode one reads as no Latin name
            // to name; it is shown in ASCII all the same, and says why.
            case .lookAlike(let script)? where display.readsAs == nil: warnings.append(.lookAlikeLetters(script: script.rawValue))
            case .lookAlike?: break
            case nil: if display.isInternational { warnings.append(.internationalHost(ascii: display.ascii)) }
            }
        }
        if let linkText, let shown = shownHost(in: linkText), case .name(let actual)? = url.host, shown != actual,
           !actual.hasSuffix("." + shown) {
            warnings.append(.textDiffers(shown: HostDisplay(shown).shown, host: host))
        }
        return warnings
    }

    /// The host a link's text appears to name: the text as a URL, or as a bare domain.
    static func shownHost(in text: String) -> String? {
        let trimmed = text.trimmingPrefix(while: { $0 == " " })
        if let url = try? ValidatedURL(String(trimmed)), case .name(let host)? = url.host { return host }
        let word = trimmed.prefix { $0 != " " && $0 != "/" }
        guard word.contains("."), word.count == trimmed.prefix(while: { $0 != "/" }).count,
              case .success(.domain(let host)) = HostName.parse(word) else { return nil }
        return HostName.domain(host).matchingKey
    }
}
