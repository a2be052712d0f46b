import FileAccess
import XDG

/// `$XDG_STATE_HOME/openurld/previous-defaults.list`: openurld's record of
/// the application behind it (see `PreviousDefaults`). The daemon updates it
/// whenever it reads the defaults, `openurl set-default` when it takes a
/// type over, the preferences window when the person picks another.
public struct PreviousDefaultsFile: Sendable {
    /// The path of `previous-defaults.list`.
    public let path: String

    /// The record of the tree `base` names.
    public init(base: BaseDirectories) {
        path = base.stateHome.trimmingSlash + "/openurld/" + PreviousDefaults.fileName
    }

    /// The record; empty when there is none or it cannot be read.
    public func read() -> PreviousDefaults {
        PreviousDefaults(parsing: (try? FileSystem.read(path)) ?? nil)
    }

    /// Writes `record`'s entries for `types` (removing those it lacks),
    /// changing only their lines, as `FileSystem.edit` edits. Writes nothing
    /// when they are as recorded.
    /// - Returns: the types whose entry changed.
    @discardableResult
    public func store(_ record: PreviousDefaults, types: some Sequence<String>) throws(EditError) -> [String] {
        var changed: [String] = []
        try FileSystem.edit(path) { (text: String?) throws(EditError) -> String? in
            changed = []
            let current = PreviousDefaults(parsing: text)
            var editor: KeyFileEditor
            do { editor = try KeyFileEditor(text ?? PreviousDefaults().text) } catch {
                throw EditError("\(path): \(error); not changed")
            }
            for type in Set(types).sorted() where current[type] != record[type] {
                editor.set(type, in: PreviousDefaults.group, to: record[type].map(KeyFile.stringValue))
                changed.append(type)
            }
            return changed.isEmpty ? nil : editor.text
        }
        return changed
    }
}
