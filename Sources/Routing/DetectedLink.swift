/// A link found in text: where it is and where it leads.
public struct DetectedLink: Sendable, Hashable, CustomStringConvertible {
    /// What kind of link it is.
    public enum Kind: String, Sendable, CaseIterable {
        /// `http:`, `https:` and `ftp:` URLs, and bare web addresses (`www.example.com`).
        case web
        /// `mailto:` URLs and bare e-mail addresses.
        case email
        /// `tel:` URLs and phone numbers.
        case phone
        /// URLs with any other scheme (`zoommtg://…`, `ssh://…`, `magnet:?…`).
        case other
    }

    /// What kind of link it is.
    public let kind: Kind
    /// The URL to open: as written for URLs, with `https://`, `mailto:` or
    /// `tel:` added for bare addresses and numbers.
    public let url: String
    /// The UTF-8 byte offset of the link in the text.
    public let offset: Int
    /// The length in UTF-8 bytes of the text the link covers (a whole
    /// Markdown link `[text](url)` for those).
    public let length: Int

    /// A link of `kind` to `url`, covering `length` UTF-8 bytes from `offset`.
    public init(kind: Kind, url: String, offset: Int, length: Int) {
        self.kind = kind
        self.url = url
        self.offset = offset
        self.length = length
    }

    /// `KIND OFFSET+LENGTH URL`, for logs and tests.
    public var description: String { "\(kind.rawValue) \(offset)+\(length) \(url)" }
}
