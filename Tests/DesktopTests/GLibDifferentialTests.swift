import Foundation
import Testing
import TestSupport

@testable import Desktop

/// Our resolution against GLib's (`gio mime`) on generated XDG trees.
@Suite(.timeLimit(.minutes(2)))
struct GLibDifferentialTests {
    /// A small deterministic generator, so that every tree can be rebuilt from its seed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
        /// A random subset in a random order (Fisher–Yates).
        mutating func subset(_ items: [String]) -> [String] {
            var chosen = items.filter { _ in chance(40) }
            for i in chosen.indices.reversed() where i > 0 { chosen.swapAt(i, Int(next() % UInt64(i + 1))) }
            return chosen
        }
    }

    static let ids = ["alpha.desktop", "beta.desktop", "gamma.desktop", "delta.desktop", "kde-epsilon.desktop", "missing.desktop"]
    static let locations = ["data/applications", "usr/share/applications", "opt/share/applications"]
    static let levels = [
        "config/mimeapps.list", "config/gnome-mimeapps.list", "etc-xdg/mimeapps.list",
        "data/applications/mimeapps.list", "usr/share/applications/mimeapps.list", "opt/share/applications/mimeapps.list",
    ]

    /// Writes the tree for `seed`; returns a description for failure messages.
    static func build(_ tree: XDGTree, seed: UInt64) throws -> String {
        var random = Generator(state: seed &* 2654435761 &+ 1)
        var description: [String] = []
        for id in ids.dropLast() {
            let copies = random.chance(15) ? 2 : (random.chance(85) ? 1 : 0)
            var used = Set<String>()
            for copy in 0..<copies {
                let location = random.pick(locations)
                guard used.insert(location).inserted else { continue }
                let path = id == "kde-epsilon.desktop" ? location + "/kde/epsilon.desktop" : location + "/" + id
                var lines = ["[Desktop Entry]", "Type=Application", "Name=\(id)"]
                lines.append(random.chance(10) ? "Exec=no-such-program-\(seed) %u" : "Exec=recorder \(id) %u")
                if random.chance(10) { lines.append("TryExec=no-such-program-\(seed)") }
                if random.chance(10) && copy == 0 { lines.append("Hidden=true") }
                if random.chance(15) { lines.append("NoDisplay=true") }
                if random.chance(75) { lines.append("MimeType=x-scheme-handler/test;") }
                try tree.write(path, lines.joined(separator: "\n") + "\n")
                description.append("\(path): \(lines.dropFirst(3).joined(separator: " | "))")
            }
        }
        for level in levels where random.chance(55) {
            var text = ""
            let defaults = random.subset(ids)
            if !defaults.isEmpty { text += "[Default Applications]\nx-scheme-handler/test=\(defaults.joined(separator: ";"));\n" }
            let added = random.subset(ids)
            if !added.isEmpty && random.chance(50) { text += "[Added Associations]\nx-scheme-handler/test=\(added.joined(separator: ";"));\n" }
            let removed = random.subset(ids)
            if !removed.isEmpty && random.chance(35) { text += "[Removed Associations]\nx-scheme-handler/test=\(removed.joined(separator: ";"));\n" }
            try tree.write(level, text)
            description.append("\(level): \(text.replacingOccurrences(of: "\n", with: " "))")
        }
        return description.joined(separator: "\n")
    }

    /// What `gio mime` reports as the default, or `nil`.
    ///
    /// Each applications directory first gets its `mimeinfo.cache`, as
    /// packages' `update-desktop-database` triggers leave it on a real system:
    /// without one, GLib does not see the MimeType= lines of XDG_DATA_DIRS
    /// entries at all (seen here), which would compare cache presence rather
    /// than resolution rules. We read MimeType= lines, never the cache.
    static func glibDefault(_ tree: XDGTree) async throws -> String? {
        for directory in ["data/applications", "usr/share/applications", "opt/share/applications"] {
            let made = try await run(["update-desktop-database", tree.root + "/" + directory])
            #expect(made.status == 0, "update-desktop-database: \(made.stderr)")
        }
        var environment = tree.environment
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        environment["GIO_USE_VFS"] = "local"
        let result = try await run(["gio", "mime", "x-scheme-handler/test"], environment: environment)
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("Default application for") {
            return line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    static func ourDefault(_ tree: XDGTree, quirks: DesktopDatabase.GLibQuirks = []) -> String? {
        var environment = tree.environment
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        let catalog = try! DesktopDatabase(environment: environment, quirks: quirks).catalog()
        return catalog.defaultApplication(for: "x-scheme-handler/test", system: DesktopDatabase.system(path: environment["PATH"]))?.id
    }

    /// Where we and GLib disagree, the difference must be explained by the
    /// places where we follow the specifications and GLib does not
    /// (`DesktopDatabase.GLibQuirks`, documented in docs/xdg-resolution.md):
    /// a difference counts as explained only if resolving with GLib's
    /// quirks reproduces GLib's answer exactly.
    @Test(arguments: 1...60)
    func agreesWithGLib(seed: Int) async throws {
        let tree = try XDGTree()
        let description = try Self.build(tree, seed: UInt64(seed))
        let ours = Self.ourDefault(tree)
        let glib = try await Self.glibDefault(tree)
        if ours != glib {
            let withQuirks = Self.ourDefault(tree, quirks: [.hiddenEntriesExist, .dataHomeRemovalsSkipOwnDirectory, .unusableEntriesDoNotShadow])
            #expect(withQuirks == glib, "seed \(seed): ours \(ours ?? "none"), GLib \(glib ?? "none"), ours with GLib's quirks \(withQuirks ?? "none")\n\(description)")
        }
    }
}
