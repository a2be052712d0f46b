/// Edits the `[Default Applications]` of a `mimeapps.list` text as
/// `KeyFileEditor` edits: only the lines it must change, every other byte kept.
public struct MimeAppsEditor: Sendable {
    private var editor: KeyFileEditor
    private static let group = "Default Applications"

    /// The edited text.
    public var text: String { editor.text }

    /// - Throws: `KeyFile.ParseError` when the text is not a keyfile: a file we
    ///   cannot parse is never touched.
    public init(_ text: String) throws(KeyFile.ParseError) {
        editor = try KeyFileEditor(text)
    }

    /// The default list for `mimeType`, or `nil` when there is no line for it.
    public func defaults(for mimeType: String) -> [String]? {
        editor.value(mimeType, in: Self.group).map(KeyFile.list)
    }

    /// Makes `id` the first default for `mimeType`, keeping the others after it
    /// (and `previous`, when the type had no line yet).
    public mutating func makeDefault(_ id: String, for mimeType: String, previous: String?) {
        let current = defaults(for: mimeType) ?? (previous.map { [$0] } ?? [])
        setDefaults([id] + current.filter { $0 != id }, for: mimeType)
    }

    /// Removes `id` from the defaults for `mimeType`; the line goes when it empties.
    public mutating func removeDefault(_ id: String, for mimeType: String) {
        guard let current = defaults(for: mimeType), current.contains(id) else { return }
        setDefaults(current.filter { $0 != id }, for: mimeType)
    }

    private mutating func setDefaults(_ ids: [String], for mimeType: String) {
        // Escaped again: the IDs were read through KeyFile.list, which unescapes.
        editor.set(mimeType, in: Self.group, to: ids.isEmpty ? nil : KeyFile.listValue(ids))
    }
}
