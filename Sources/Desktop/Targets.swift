import FileAccess
import Router
import Routing
import XDG

extension DesktopDatabase {
    /// The profiles of the browser `id`, from its native and Flatpak profile lists.
    public func profiles(of id: String) -> [BrowserProfiles.Profile] {
        guard let family = BrowserProfiles.family(of: id) else { return [] }
        return BrowserProfiles.stateFiles(of: id, home: base.home, configHome: base.configHome).flatMap { path in
            ((try? FileSystem.read(path)) ?? nil).map { BrowserProfiles.profiles(family, listedIn: $0) } ?? []
        }
    }

    /// Every target for `scheme`: the default application first, then the
    /// others set up for it (never the dispatcher), each followed by its
    /// actions and profiles. Reads files only; launches nothing.
    public func targets(for scheme: String, system: ApplicationCatalog.System) throws(ResourceExhausted) -> [ChooserCandidate] {
        let catalog = try catalog()
        let type = "x-scheme-handler/" + scheme
        var ids: [String] = []
        if let chosen = catalog.fallbackApplication(forScheme: scheme, system: system, previous: previousDefaults())?.entry { ids.append(chosen.id) }
        for id in catalog.associatedApplications(for: type) where !ids.contains(id) {
            if let entry = catalog.entries[id]?.entry, catalog.isUsable(entry, system: system) { ids.append(id) }
        }
        return ids.flatMap { id -> [ChooserCandidate] in
            guard let entry = catalog.entries[id]?.entry else { return [] }
            let icon = entry.icon ?? ""
            return [ChooserCandidate(target: .application(id), name: entry.name, icon: icon)]
                + entry.actions.filter { $0.exec != nil }.map {
                    ChooserCandidate(target: .action(id, action: $0.id), name: entry.name + ": " + $0.name, icon: icon)
                }
                + profiles(of: id).map { ChooserCandidate(target: .profile(id, profile: $0.name), name: entry.name + " (" + $0.name + ")", icon: icon) }
        }
    }
}
