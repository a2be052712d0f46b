/// What a handler says about a URL: the four answers of SwiftUI's
/// `OpenURLAction.Result`, in the words `HandleURL`'s `(ss)` reply, rule
/// files' `Result=` and `openurl handle`'s programs write.
///
/// The walk reads it as a `HandlerAnswer`, which adds what the dispatcher
/// can conclude without a reply (a failure, an undecided turn).
public enum HandlerReply: Sendable, Equatable {
    /// Stop; the URL was opened.
    case handled
    /// Stop; the URL must not be opened.
    case discarded
    /// Pass the same URL outward.
    case systemAction
    /// Pass this URL outward instead (`systemAction` with a URL).
    case rewrite(String)

    /// The result words, as on the wire: `handled`, `discarded`, `systemAction`.
    public static let words = ["handled", "discarded", "systemAction"]

    /// The result word: `systemAction` for a rewrite too.
    public var word: String {
        switch self {
        case .handled: Self.words[0]
        case .discarded: Self.words[1]
        case .systemAction, .rewrite: Self.words[2]
        }
    }

    /// The URL passed on: the rewrite's, or empty.
    public var url: String { if case .rewrite(let url) = self { url } else { "" } }

    /// The reply that `word` and `url` spell (`systemAction` with a non-empty
    /// URL is a rewrite); `nil` for a word that is none of the three.
    public init?(word: String, url: String = "") {
        switch word {
        case Self.words[0]: self = .handled
        case Self.words[1]: self = .discarded
        case Self.words[2]: self = url.isEmpty ? .systemAction : .rewrite(url)
        default: return nil
        }
    }

    /// Whether the reply ends the walk.
    public var stops: Bool { self == .handled || self == .discarded }
}
