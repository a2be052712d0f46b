import Testing

@testable import XDG

/// The catalog finds the entries claiming a type (their `MimeType=`) through
/// an index made once: the answer must be the specification's order the scan
/// of every entry gave, for every type, alias and directory.
@Suite struct ClaimantsTests {
    /// 60 entries over three directories; each claims a few of eight types,
    /// some under an alias, one type twice.
    static let catalog: ApplicationCatalog = {
        let types = ["text/html", "application/pdf", "application/x-pdf", "image/png", "x-scheme-handler/https",
                     "x-scheme-handler/http", "x-scheme-handler/mailto", "application/gzip"]
        var entries: [String: ApplicationCatalog.Installed] = [:]
        for number in 0..<60 {
            let claimed = (0..<types.count).filter { (number * 7 + $0 * 3) % 5 == 0 }.map { types[$0] }
            let twice = number % 11 == 0 ? claimed.prefix(1) : []
            let text = "[Desktop Entry]\nType=Application\nName=App \(number)\nExec=app%20\(number)\nMimeType=\((claimed + twice).joined(separator: ";"));\n"
            let id = "app-\((number * 37) % 60).desktop"
            let entry = DesktopEntry(id: id, keyFile: try! KeyFile(parsing: text))!
            entries[id] = ApplicationCatalog.Installed(entry: entry, directoryIndex: number % 3)
        }
        return ApplicationCatalog(levels: [], entries: entries, aliases: ["application/x-pdf": "application/pdf"])
    }()

    /// The order `associatedApplications` gave by scanning every entry.
    static func scanned(_ catalog: ApplicationCatalog, _ type: String) -> [String] {
        let names = catalog.names(of: type)
        return catalog.entries.values.filter { installed in names.contains(where: installed.entry.mimeTypes.contains) }
            .sorted { ($0.directoryIndex, $0.entry.id) < ($1.directoryIndex, $1.entry.id) }
            .map(\.entry.id)
    }

    @Test(arguments: ["text/html", "application/pdf", "application/x-pdf", "image/png", "x-scheme-handler/https",
                      "x-scheme-handler/http", "x-scheme-handler/mailto", "application/gzip", "nothing/claims-this"])
    func theIndexGivesTheScansOrder(_ type: String) {
        let expected = Self.scanned(Self.catalog, type)
        #expect(Self.catalog.associatedApplications(for: type) == expected)
        #expect(type == "nothing/claims-this" ? expected.isEmpty : !expected.isEmpty, "the catalog must exercise the type")
    }
}
