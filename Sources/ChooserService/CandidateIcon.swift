/// What a chooser draws for a target's `Icon=`: a name from the icon theme,
/// an image file, or the generic application icon, never a broken-image
/// placeholder for an icon the theme does not have.
public enum CandidateIcon: Equatable, Sendable {
    case named(String)
    case file(String)

    /// The theme's generic icon for an application.
    public static let generic = CandidateIcon.named("application-x-executable")

    /// - Parameters:
    ///   - icon: the desktop entry's `Icon=` ("" when it has none).
    ///   - themeHas: whether the icon theme has an icon of that name.
    ///   - isReadableFile: whether an absolute path is a file that can be read.
    public init(_ icon: String, themeHas: (String) -> Bool, isReadableFile: (String) -> Bool) {
        if icon.hasPrefix("/") {
            self = isReadableFile(icon) ? .file(icon) : Self.generic
        } else if !icon.isEmpty, !icon.contains("/"), themeHas(icon) {
            self = .named(icon)
        } else {
            self = Self.generic
        }
    }
}
