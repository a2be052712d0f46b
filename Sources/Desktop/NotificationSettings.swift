import FileAccess
import XDG

/// Whether failures are shown as desktop notifications: the person's
/// setting, `[Notifications] Failures=false` in
/// `$XDG_CONFIG_HOME/openurld/openurld.conf` (read on every notice, so a
/// change applies at once). On when the file or the key is missing.
public struct NotificationSettings: Sendable {
    /// The path of `openurld.conf`.
    public let path: String
    static let group = "Notifications"
    static let key = "Failures"

    /// The settings of the tree `base` names.
    public init(base: BaseDirectories) {
        path = base.configHome.trimmingSlash + "/openurld/openurld.conf"
    }

    /// Whether failures are to be shown.
    public var showsFailures: Bool {
        guard let text = (try? FileSystem.read(path)) ?? nil else { return true }
        let (file, _) = KeyFile.parsingLeniently(text)
        return KeyFile.boolean(file.group(Self.group)?.value(Self.key)) ?? true
    }

    /// Turns the setting on or off, changing only its line (`FileSystem.edit`).
    public func setShowsFailures(_ shows: Bool) throws(EditError) {
        try FileSystem.edit(path) { (text: String?) throws(EditError) -> String? in
            var editor: KeyFileEditor
            do { editor = try KeyFileEditor(text ?? "") } catch { throw EditError("\(path): \(error); not changed") }
            editor.set(Self.key, in: Self.group, to: shows ? "true" : "false")
            return editor.text
        }
    }
}
