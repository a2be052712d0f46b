import ChooserService
import Testing

/// A target's icon is the theme's, a readable file, or the generic
/// application icon: never GTK's broken-image placeholder (issue 28).
@Suite struct CandidateIconTests {
    let theme: Set<String> = ["web-browser", "application-x-executable"]

    func icon(_ name: String, files: Set<String> = []) -> CandidateIcon {
        CandidateIcon(name, themeHas: { theme.contains($0) }, isReadableFile: { files.contains($0) })
    }

    @Test func aNameTheThemeHasIsUsed() { #expect(icon("web-browser") == .named("web-browser")) }
    @Test func aNameTheThemeLacksIsTheGenericIcon() { #expect(icon("firefox") == .generic) }
    @Test func noIconIsTheGenericIcon() { #expect(icon("") == .generic) }
    @Test func aReadableFileIsUsed() { #expect(icon("/opt/app/icon.png", files: ["/opt/app/icon.png"]) == .file("/opt/app/icon.png")) }
    @Test func aMissingFileIsTheGenericIcon() { #expect(icon("/opt/app/missing.png") == .generic) }
    @Test func aRelativePathIsNoIconName() { #expect(icon("../../etc/passwd") == .generic) }
}
