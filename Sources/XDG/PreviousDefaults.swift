/// The application behind the dispatcher: for each type openurld may be made
/// the default of, the last default that was not openurld itself. It is
/// openurld's own record (`$XDG_STATE_HOME/openurld/previous-defaults.list`),
/// because the desktops' settings panels make openurld the only default and
/// keep nothing of the application before it.
///
/// The file is a keyfile: one `[Previous Defaults]` group, `TYPE=ID` lines.
public struct PreviousDefaults: Sendable, Equatable {
    /// Desktop-file IDs by MIME type.
    public private(set) var applications: [String: String] = [:]

    /// The file's one group.
    public static let group = "Previous Defaults"
    /// The file's name in `$XDG_STATE_HOME/openurld`.
    public static let fileName = "previous-defaults.list"

    /// A record of `applications` by type.
    public init(_ applications: [String: String] = [:]) {
        for (type, id) in applications { self[type] = id }
    }

    /// Reads a record; lines that are not a recorded type with a desktop-file
    /// ID are ignored (an unreadable record only loses the record).
    public init(parsing text: String?) {
        guard let text else { return }
        let (file, _) = KeyFile.parsingLeniently(text)
        for entry in file.group(Self.group)?.entries ?? [] { self[entry.key] = KeyFile.unescape(entry.value) }
    }

    /// The recorded application for `type`; setting a value that is not a
    /// desktop-file ID, or for a type that is not recorded, does nothing.
    public subscript(type: String) -> String? {
        get { applications[type] }
        set {
            guard Self.isRecorded(type) else { return }
            guard let newValue else { applications[type] = nil; return }
            guard Self.isDesktopFileID(newValue) else { return }
            applications[type] = newValue
        }
    }

    /// The types openurld may be made the default of: URL schemes, and the
    /// page types a desktop's "web browser" setting writes.
    public static func isRecorded(_ type: String) -> Bool {
        if type.hasPrefix("x-scheme-handler/") {
            let scheme = type.dropFirst("x-scheme-handler/".count)
            return !scheme.isEmpty && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        }
        return pageTypes.contains(type)
    }

    /// The types a page is, which desktops set with the web browser.
    public static let pageTypes = ["text/html", "application/xhtml+xml"]

    /// An ID as the Desktop Entry specification forms them: a file name
    /// ending in `.desktop`, never a path, nothing to escape.
    public static func isDesktopFileID(_ id: String) -> Bool {
        id.hasSuffix(".desktop") && id.count > 8 && id.utf8.count <= 255 && !id.hasPrefix(".")
            && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "/" && $0 != "\\" && $0 != ";" && $0 != "=" && $0.value != 0x7F }
    }

    /// This record with what the defaults show now: each recorded type whose
    /// default is an application other than the dispatcher.
    public func updated(observing catalog: ApplicationCatalog, system: ApplicationCatalog.System) -> PreviousDefaults {
        var record = self
        for (type, id) in catalog.observedDefaults(system: system) { record[type] = id }
        return record
    }

    /// The record as its file's text, types sorted.
    public var text: String {
        var lines = [
            "# Written by openurld: the application each type opened with before openurld",
            "# became its default, used for links no rule decides. See openurl help default.",
            "[" + Self.group + "]",
        ]
        for (type, id) in applications.sorted(by: { $0.key < $1.key }) { lines.append(type + "=" + KeyFile.stringValue(id)) }
        return lines.joined(separator: "\n") + "\n"
    }
}
