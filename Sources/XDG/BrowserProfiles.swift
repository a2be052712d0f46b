/// Browser profiles as targets (`firefox.desktop@work`): which desktop IDs
/// are which browser, where each keeps its list of profiles (native and
/// Flatpak installs), how to read that list, and the option that opens a
/// profile. Pure: the files' texts are given.
public enum BrowserProfiles {
    /// How a browser family lists and opens its profiles.
    public enum Family: Sendable, Equatable {
        /// `profiles.ini`; opened with `-P NAME`.
        case firefox
        /// The JSON `Local State`, `profile.info_cache`; opened with `--profile-directory=DIR`.
        case chromium
    }

    /// One profile: the name written after `@`, and the arguments that open it.
    public struct Profile: Sendable, Equatable {
        /// The profile's name, as a target writes it after `@`.
        public let name: String
        /// The arguments the browser opens it with (`-P NAME`, `--profile-directory=DIR`).
        public let arguments: [String]
        /// A profile `name`, opened with `arguments`.
        public init(name: String, arguments: [String]) {
            self.name = name
            self.arguments = arguments
        }
    }

    /// Desktop ID → family and the profile lists' paths, relative to the home
    /// directory (`~`) or to `$XDG_CONFIG_HOME` (`config`).
    static let known: [String: (Family, [(base: Base, path: String)])] = [
        "firefox.desktop": (.firefox, [(.home, ".mozilla/firefox/profiles.ini")]),
        "firefox-esr.desktop": (.firefox, [(.home, ".mozilla/firefox/profiles.ini")]),
        "org.mozilla.firefox.desktop": (.firefox, [(.home, ".var/app/org.mozilla.firefox/.mozilla/firefox/profiles.ini")]),
        "chromium.desktop": (.chromium, [(.config, "chromium/Local State")]),
        "chromium-browser.desktop": (.chromium, [(.config, "chromium/Local State")]),
        "org.chromium.Chromium.desktop": (.chromium, [(.home, ".var/app/org.chromium.Chromium/config/chromium/Local State")]),
        "google-chrome.desktop": (.chromium, [(.config, "google-chrome/Local State")]),
        "com.google.Chrome.desktop": (.chromium, [(.home, ".var/app/com.google.Chrome/config/google-chrome/Local State")]),
        "brave-browser.desktop": (.chromium, [(.config, "BraveSoftware/Brave-Browser/Local State")]),
        "com.brave.Browser.desktop": (.chromium, [(.home, ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/Local State")]),
        "microsoft-edge.desktop": (.chromium, [(.config, "microsoft-edge/Local State")]),
        "com.microsoft.Edge.desktop": (.chromium, [(.home, ".var/app/com.microsoft.Edge/config/microsoft-edge/Local State")]),
        "vivaldi-stable.desktop": (.chromium, [(.config, "vivaldi/Local State")]),
        "com.vivaldi.Vivaldi.desktop": (.chromium, [(.home, ".var/app/com.vivaldi.Vivaldi/config/vivaldi/Local State")]),
    ]

    enum Base { case home, config }

    /// The family of the browser with desktop ID `id`, or `nil`.
    public static func family(of id: String) -> Family? { known[id]?.0 }

    /// Where `id` keeps its profile list: absolute paths for this home and config directory.
    public static func stateFiles(of id: String, home: String, configHome: String) -> [String] {
        (known[id]?.1 ?? []).map { ($0.base == .home ? home : configHome) + "/" + $0.path }
    }

    /// The profiles a profile list names, in its order.
    public static func profiles(_ family: Family, listedIn text: String) -> [Profile] {
        switch family {
        case .firefox:
            // [ProfileN] groups with Name=; other groups ([General], [Install…]) are not profiles.
            guard let file = try? KeyFile(parsing: text) else { return [] }
            return file.groups.filter { $0.name.hasPrefix("Profile") }.compactMap { group in
                guard let name = group.value("Name"), !name.isEmpty else { return nil }
                return Profile(name: name, arguments: ["-P", name])
            }
        case .chromium:
            guard case .object(let cache)? = JSONValue(parsing: text)?["profile"]?["info_cache"] else { return [] }
            return cache.keys.sorted().map { directory in
                Profile(name: cache[directory]?["name"]?.string ?? directory, arguments: ["--profile-directory=" + directory])
            }
        }
    }
}
