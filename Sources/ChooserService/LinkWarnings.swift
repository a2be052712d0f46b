import HostNames
import Routing

/// What the chooser shows of a URL: the text split around its host, so the
/// host can be emphasised, and the warnings that matter before opening it.
/// Pure: tested from tables.
public struct LinkPresentation: Sendable, Equatable {
    /// The URL's text before the host (scheme, `//`, any user-info).
    public let beforeHost: String
    /// The host as written in the URL (empty when it has none).
    public let host: String
    /// The rest: port, path, query, fragment.
    public let afterHost: String
    public let warnings: [LinkWarning]

    public init(_ url: ValidatedURL, linkText: String? = nil) {
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
        }
        beforeHost = before
        self.host = host
        afterHost = after
        warnings = LinkWarning.all(for: url, userInfo: userInfo, linkText: linkText)
    }
}

/// A reason to look twice at a link before opening it.
public enum LinkWarning: Sendable, Equatable {
    /// `http:`: anyone on the network can read and change the page.
    case notEncrypted
    /// User-info before the host: `https://bank.example@evil.example/` goes to `evil.example`.
    case userInfo(shown: String, host: String)
    /// The host has internationalised labels; `readable` is how it reads.
    case internationalHost(readable: String)
    /// The host's letters come from more than one script (a homograph trick).
    case mixedScripts
    /// The link's text names another host than the one it goes to.
    case textDiffers(shown: String, host: String)

    /// The warning as a sentence for the window.
    public var message: String {
        switch self {
        case .notEncrypted: "Not encrypted: this link uses plain HTTP."
        case .userInfo(let shown, let host): "“\(shown)” before the @ is not where this link goes: it goes to \(host)."
        case .internationalHost(let readable): "The host is an international name; it reads as \(readable)."
        case .mixedScripts: "The host mixes letters of different alphabets, as look-alike addresses do."
        case .textDiffers(let shown, let host): "The link's text shows \(shown), but it goes to \(host)."
        }
    }

    static func all(for url: ValidatedURL, userInfo: String?, linkText: String?) -> [LinkWarning] {
        var warnings: [LinkWarning] = []
        let host = url.host.map(\.description) ?? ""
        if url.scheme == "http" { warnings.append(.notEncrypted) }
        if let userInfo, !userInfo.isEmpty { warnings.append(.userInfo(shown: userInfo, host: host)) }
        let labels = host.split(separator: ".")
        if labels.contains(where: { $0.hasPrefix("xn--") }) {
            let readable = labels.map { label -> String in
                guard label.hasPrefix("xn--"), let scalars = Punycode.decode(label.utf8.dropFirst(4)) else { return String(label) }
                return String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init)))
            }
            warnings.append(.internationalHost(readable: readable.joined(separator: ".")))
            if readable.contains(where: { Script.count(in: $0) > 1 }) { warnings.append(.mixedScripts) }
        }
        if let linkText, let shown = shownHost(in: linkText), case .name(let actual)? = url.host, shown != actual,
           !actual.hasSuffix("." + shown) {
            warnings.append(.textDiffers(shown: shown, host: actual))
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

/// The scripts that matter for look-alike hosts, by code-point block.
enum Script: Hashable {
    case latin, greek, cyrillic, armenian, other

    init?(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x30...0x39, 0x2D: return nil  // digits and hyphens belong to every script
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF: self = .latin
        case 0x370...0x3FF, 0x1F00...0x1FFF: self = .greek
        case 0x400...0x52F: self = .cyrillic
        case 0x530...0x58F: self = .armenian
        default: self = .other
        }
    }

    static func count(in label: String) -> Int {
        Set(label.unicodeScalars.compactMap(Script.init)).count
    }
}
