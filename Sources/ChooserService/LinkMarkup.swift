import SafeText

extension LinkPresentation {
    /// The address as Pango markup for the window: the host in bold, the
    /// rest escaped, and no hyphen where a line breaks (Pango adds one inside
    /// a word; in a URL it would be a character that is not there).
    public var markup: String {
        Self.unhyphenated(xmlEscaped(beforeHost) + "<b>" + xmlEscaped(host) + "</b>" + xmlEscaped(afterHost))
    }

    /// `markup` broken across lines without an added hyphen.
    public static func unhyphenated(_ markup: String) -> String {
        "<span insert_hyphens=\"false\">" + markup + "</span>"
    }
}
