/// The XDG base directories, per the XDG Base Directory specification, from
/// an environment dictionary: unset or empty variables take their defaults,
/// and relative paths are ignored ("all paths ... must be absolute").
public struct BaseDirectories: Sendable, Equatable {
    /// `$HOME` ("/" when unset or relative).
    public let home: String
    /// `$XDG_CONFIG_HOME` (`~/.config`).
    public let configHome: String
    /// `$XDG_CONFIG_DIRS` (`/etc/xdg`).
    public let configDirs: [String]
    /// `$XDG_DATA_HOME` (`~/.local/share`).
    public let dataHome: String
    /// `$XDG_STATE_HOME`: state that should survive a restart but is not worth
    /// backing up (openurld's record of the application behind it).
    public let stateHome: String
    /// `$XDG_DATA_DIRS`, then the sandbox export directories it lacks.
    public let dataDirs: [String]

    /// The directories `environment` names, with the specification's defaults.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        self.home = home
        func single(_ name: String, default fallback: String) -> String {
            guard let value = environment[name], value.hasPrefix("/") else { return fallback }
            return value
        }
        func list(_ name: String, default fallback: [String]) -> [String] {
            let absolute = (environment[name] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
            return absolute.isEmpty ? fallback : absolute
        }
        configHome = single("XDG_CONFIG_HOME", default: home.trimmingSlash + "/.config")
        configDirs = list("XDG_CONFIG_DIRS", default: ["/etc/xdg"])
        dataHome = single("XDG_DATA_HOME", default: home.trimmingSlash + "/.local/share")
        stateHome = single("XDG_STATE_HOME", default: home.trimmingSlash + "/.local/state")
        var dataDirs = list("XDG_DATA_DIRS", default: ["/usr/local/share", "/usr/share"])
        // Sandboxed applications export their desktop files to directories
        // their packaging adds to XDG_DATA_DIRS from login scripts, which a
        // service started by D-Bus or systemd may not have run: they are
        // added here, after the others, when missing.
        let system = environment["OPENURLD_EXTRA_DATA_DIRS"].map { $0.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") } }
            ?? Self.sandboxExports
        for directory in [dataHome.trimmingSlash + "/flatpak/exports/share"] + system
        where !dataDirs.contains(where: { $0.trimmingSlash == directory }) {
            dataDirs.append(directory)
        }
        self.dataDirs = dataDirs
    }

    /// Where Flatpak (system-wide installs) and snapd export desktop files;
    /// `OPENURLD_EXTRA_DATA_DIRS` replaces this list (empty: none). The
    /// user's own Flatpak exports, `$XDG_DATA_HOME/flatpak/exports/share`,
    /// are always added.
    public static let sandboxExports = ["/var/lib/flatpak/exports/share", "/var/lib/snapd/desktop"]

    /// `applications` directories in precedence order: the user's first.
    public var applicationDirectories: [String] {
        ([dataHome] + dataDirs).map { $0.trimmingSlash + "/applications" }
    }

    /// `subpath` below each config directory, in precedence order: the user's first.
    public func configDirectories(_ subpath: String) -> [String] {
        ([configHome] + configDirs).map { $0.trimmingSlash + "/" + subpath }
    }
}

extension String {
    package var trimmingSlash: String { count > 1 && hasSuffix("/") ? String(dropLast()) : self }
}
