/// The keys of a desktop entry that launching a URL needs.
public struct DesktopEntry: Sendable, Equatable {
    /// The desktop file ID, e.g. `org.mozilla.firefox.desktop`.
    public let id: String
    /// Where it was found (for `%k`); empty for entries not read from disk.
    public let path: String
    /// Its `Name=`.
    public let name: String
    public private(set) var exec: String?
    /// Its `TryExec=`: the program that must be installed for the entry to count.
    public let tryExec: String?
    /// Its `Icon=`.
    public let icon: String?
    /// Its `MimeType=`: the types it can open.
    public let mimeTypes: [String]
    /// Its `Categories=`, e.g. `Network;WebBrowser;`.
    public let categories: [String]
    public private(set) var hidden: Bool
    /// Its `NoDisplay=`: kept from menus, still usable as a default.
    public let noDisplay: Bool
    /// Its `Terminal=`: it runs in a terminal.
    public let terminal: Bool
    public private(set) var dbusActivatable: Bool
    /// Whether `Type=Application`.
    public let isApplication: Bool
    /// Its `Actions=`, in order, with their `[Desktop Action …]` groups.
    public let actions: [DesktopAction]

    /// Reads the `[Desktop Entry]` group; `nil` when the file has none.
    public init?(id: String, path: String = "", keyFile: KeyFile) {
        guard let group = keyFile.group("Desktop Entry") else { return nil }
        self.id = id
        self.path = path
        name = group.value("Name").map(KeyFile.unescape) ?? id
        exec = group.value("Exec").map(KeyFile.unescape)
        tryExec = group.value("TryExec").map(KeyFile.unescape)
        icon = group.value("Icon").map(KeyFile.unescape)
        mimeTypes = group.value("MimeType").map(KeyFile.list) ?? []
        categories = group.value("Categories").map(KeyFile.list) ?? []
        hidden = KeyFile.boolean(group.value("Hidden")) ?? false
        noDisplay = KeyFile.boolean(group.value("NoDisplay")) ?? false
        terminal = KeyFile.boolean(group.value("Terminal")) ?? false
        dbusActivatable = KeyFile.boolean(group.value("DBusActivatable")) ?? false
        isApplication = group.value("Type") == "Application"
        actions = (group.value("Actions").map(KeyFile.list) ?? []).compactMap { id in
            guard let action = keyFile.group("Desktop Action " + id) else { return nil }
            return DesktopAction(id: id, name: action.value("Name").map(KeyFile.unescape) ?? id, exec: action.value("Exec").map(KeyFile.unescape))
        }
    }

    /// An entry that only runs `commandLine` (Exec syntax), for a rule's `Exec=`;
    /// `id` names it in logs and in its systemd scope.
    public init(id: String, commandLine: String) {
        self.id = id
        path = ""
        name = id
        exec = commandLine
        tryExec = nil
        icon = nil
        mimeTypes = []
        categories = []
        hidden = false
        noDisplay = true
        terminal = false
        dbusActivatable = false
        isApplication = true
        actions = []
    }

    /// The entry with `action`'s command in place of its own (Desktop Entry
    /// spec: an action is launched by its own Exec). A `DBusActivatable`
    /// entry keeps its bus name, so that the action is not activated as
    /// the application itself. `nil` when the entry has no such action.
    public func performing(_ action: String) -> DesktopEntry? {
        guard let found = actions.first(where: { $0.id == action }), let command = found.exec else { return nil }
        var copy = self
        copy.exec = command
        copy.dbusActivatable = false
        return copy
    }

    /// The same entry as if it had no `Hidden=true` (GLib's reading, for comparison).
    package var unhidden: DesktopEntry {
        var copy = self
        copy.hidden = false
        return copy
    }

    /// The D-Bus name of a `DBusActivatable` application: its ID without `.desktop`.
    public var busName: String { id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id }
}

/// The desktop file ID for a file at `relativePath` below an `applications`
/// directory: `kde4/foo.desktop` is `kde4-foo.desktop` (Desktop Entry spec).
public func desktopFileID(relativePath: String) -> String {
    relativePath.split(separator: "/").joined(separator: "-")
}
