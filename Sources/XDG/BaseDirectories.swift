/// The XDG base directories, per the XDG Base Directory specification, from
/// an environment dictionary: unset or empty variables take their defaults,
/// and relative paths are ignored ("all paths ... must be absolute").
public struct BaseDirectories: Sendable, Equatable {
    /// `$HOME` ("/" when unset or relative).
    public let home: String
    public let configHome: String
    public let configDirs: [String]
    public let dataHome: String
    public let dataDirs: [String]

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
        dataDirs = list("XDG_DATA_DIRS", default: ["/usr/local/share", "/usr/share"])
    }

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
