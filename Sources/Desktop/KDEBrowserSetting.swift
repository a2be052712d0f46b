import FileAccess
import DispatcherAPI
import XDG

/// KDE's own default-browser setting, `BrowserApplication` in the
/// `[General]` group of `$XDG_CONFIG_HOME/kdeglobals`. KIO opens http and
/// https links with it before it looks at `mimeapps.list`, and
/// `xdg-settings get default-web-browser` reports it on KDE, so it must name
/// the dispatcher whenever the dispatcher is the web browser.
public struct KDEBrowserSetting: Sendable {
    /// The path of `kdeglobals`.
    public let path: String
    /// Whether this session is KDE's (then the setting is written even when absent).
    public let isKDE: Bool

    static let group = "General"
    static let key = "BrowserApplication"

    /// The setting of the tree `base` names, in the session `environment` describes.
    public init(base: BaseDirectories, environment: [String: String]) {
        path = base.configHome.trimmingSlash + "/kdeglobals"
        isKDE = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").contains { $0.uppercased() == "KDE" }
    }

    /// The setting's value (a desktop-file ID, or `!command`), or `nil` when unset or unreadable.
    public var value: String? {
        guard let text = (try? FileSystem.read(path)) ?? nil, let editor = try? KeyFileEditor(text) else { return nil }
        return editor.value(Self.key, in: Self.group).map(KeyFile.unescape).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The browser the setting names as a desktop-file ID (KDE also writes
    /// it without `.desktop`), when it is not a command line.
    public var browserID: String? {
        guard let value, !value.hasPrefix("!") else { return nil }
        let id = value.hasSuffix(".desktop") ? value : value + ".desktop"
        return PreviousDefaults.isDesktopFileID(id) ? id : nil
    }

    /// Makes the setting follow `set-default --browser` (`makeDefault`) or
    /// `unset-default --browser`: it names the dispatcher, or (when it did)
    /// the recorded browser again, or nothing. Touches the file only on KDE
    /// or where the setting is already set; only that line changes.
    /// - Returns: the line to report, or "" when nothing changed.
    public func follow(makeDefault: Bool, record: PreviousDefaults) throws(EditError) -> String {
        let current = value
        guard isKDE || current != nil else { return "" }
        let dispatcher = DispatcherAPI.desktopID
        let wanted: String?
        if makeDefault {
            wanted = dispatcher
        } else {
            guard current == dispatcher || current == DispatcherAPI.busName.rawValue else { return "" }
            wanted = record["x-scheme-handler/https"] ?? record["x-scheme-handler/http"]
        }
        guard wanted != current else { return "" }
        try FileSystem.edit(path) { (text: String?) throws(EditError) -> String? in
            var editor: KeyFileEditor
            do { editor = try KeyFileEditor(text ?? "") } catch { throw EditError("\(path): \(error); not changed") }
            editor.set(Self.key, in: Self.group, to: wanted.map(KeyFile.stringValue))
            return editor.text
        }
        return "KDE's BrowserApplication (\(path)): \(current ?? "(none)") → \(wanted ?? "(none)")\n"
    }
}
