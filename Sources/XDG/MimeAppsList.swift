/// One `mimeapps.list` file, at one level of the lookup order.
public struct MimeAppsList: Sendable, Equatable {
    /// `[Default Applications]`: the defaults by type, in order of preference.
    public var defaults: [String: [String]] = [:]
    /// `[Added Associations]`: applications added for a type.
    public var added: [String: [String]] = [:]
    /// `[Removed Associations]`: applications removed from a type.
    public var removed: [String: [String]] = [:]
    /// `$desktop-mimeapps.list` files may only set defaults.
    public var isDesktopSpecific = false
    /// The first applications directory (index into
    /// `BaseDirectories.applicationDirectories`) whose desktop files this
    /// file's added and removed associations apply to: 0 for the config
    /// directories and `XDG_DATA_HOME`, i + 1 for the i-th `XDG_DATA_DIRS` entry.
    public var scope = 0
    /// Where removed associations start applying; the same as `scope` except
    /// when reproducing GLib (see `DesktopDatabase.GLibQuirks`).
    public var removalScope = 0

    /// An empty file.
    public init() {}

    /// Reads the three groups; other groups are ignored.
    public init(_ keyFile: KeyFile, isDesktopSpecific: Bool, scope: Int) {
        func read(_ group: String) -> [String: [String]] {
            var result: [String: [String]] = [:]
            for entry in keyFile.group(group)?.entries ?? [] { result[entry.key] = KeyFile.list(entry.value) }
            return result
        }
        defaults = read("Default Applications")
        if !isDesktopSpecific {
            added = read("Added Associations")
            removed = read("Removed Associations")
        }
        self.isDesktopSpecific = isDesktopSpecific
        self.scope = scope
        self.removalScope = scope
    }

    /// The file names to read in one directory, in lookup order: each
    /// `$desktop-mimeapps.list` for `XDG_CURRENT_DESKTOP`, then `mimeapps.list`.
    /// A desktop name that could leave the directory (`/`, `..`) is skipped.
    public static func fileNames(currentDesktop: String?) -> [(name: String, isDesktopSpecific: Bool)] {
        let desktops = (currentDesktop ?? "").split(separator: ":").map { $0.lowercased() }
            .filter { !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") && !$0.contains("\0") }
        return desktops.map { ($0 + "-mimeapps.list", true) } + [("mimeapps.list", false)]
    }
}
