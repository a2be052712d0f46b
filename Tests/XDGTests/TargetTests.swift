import Routing
import XDG
import Testing

/// Targets as rules and `openurl targets` write them, desktop actions,
/// browser profile lists and the options that open a profile.
@Suite struct TargetTests {
    @Test(arguments: [
        ("firefox.desktop", Target.application("firefox.desktop")),
        ("firefox.desktop:new-private-window", .action("firefox.desktop", action: "new-private-window")),
        ("firefox.desktop@work", .profile("firefox.desktop", profile: "work")),
        ("org.mozilla.firefox.desktop@Work Stuff", .profile("org.mozilla.firefox.desktop", profile: "Work Stuff")),
    ] as [(String, Target)])
    func targetsReadAndWriteBack(_ text: String, _ target: Target) {
        #expect(Target(text) == target)
        #expect(target.description == text)
    }

    @Test(arguments: ["firefox", ".desktop", "a/b.desktop", "firefox.desktop@", "firefox.desktop:", "x@y.desktop"])
    func nonTargetsAreRefused(_ text: String) {
        #expect(Target(text) == nil, "\(text)")
    }

    @Test func desktopActionsAreRead() throws {
        let file = try KeyFile(parsing: """
            [Desktop Entry]
            Type=Application
            Name=Firefox
            Exec=firefox %u
            Actions=new-window;new-private-window;missing;

            [Desktop Action new-window]
            Name=New Window
            Exec=firefox --new-window %u

            [Desktop Action new-private-window]
            Name=New Private Window
            Exec=firefox --private-window %u

            """)
        let entry = try #require(DesktopEntry(id: "firefox.desktop", keyFile: file))
        #expect(entry.actions.map(\.id) == ["new-window", "new-private-window"], "an action without its group is left out")
        #expect(entry.performing("new-private-window")?.exec == "firefox --private-window %u")
        #expect(entry.performing("nope") == nil)
    }

    @Test func firefoxAndChromiumProfileListsAreRead() {
        let ini = """
            [General]
            StartWithLastProfile=1

            [Profile1]
            Name=work
            IsRelative=1
            Path=abcd.work

            [Profile0]
            Name=default-release
            IsRelative=1
            Path=efgh.default-release
            Default=1

            [Install4F96D1932A9F858E]
            Default=efgh.default-release
            """
        #expect(BrowserProfiles.profiles(.firefox, listedIn: ini) == [
            .init(name: "work", arguments: ["-P", "work"]), .init(name: "default-release", arguments: ["-P", "default-release"]),
        ])
        let localState = #"{"browser":{"x":1},"profile":{"info_cache":{"Profile 1":{"name":"Work \u00e9\ud83d\ude00","is_using_default_name":false},"Default":{"name":"Person 1"}},"last_used":"Default"}}"#
        #expect(BrowserProfiles.profiles(.chromium, listedIn: localState) == [
            .init(name: "Person 1", arguments: ["--profile-directory=Default"]),
            .init(name: "Work é😀", arguments: ["--profile-directory=Profile 1"]),
        ])
        #expect(BrowserProfiles.profiles(.chromium, listedIn: "{not json") == [])
        #expect(BrowserProfiles.family(of: "com.brave.Browser.desktop") == .chromium)
        #expect(BrowserProfiles.stateFiles(of: "org.mozilla.firefox.desktop", home: "/h", configHome: "/h/.config")
            == ["/h/.var/app/org.mozilla.firefox/.mozilla/firefox/profiles.ini"])
    }

    /// A profile's options go before the URL, and before Flatpak's `@@u`,
    /// so that they reach the browser rather than `flatpak run`.
    @Test func profileOptionsReachTheApplication() throws {
        let entry = DesktopEntry(id: "x.desktop", commandLine: "unused")
        #expect(try ExecLine("firefox %u").arguments(for: "https://a/", entry: entry, options: ["-P", "work"])
            == ["firefox", "-P", "work", "https://a/"])
        #expect(try ExecLine("/usr/bin/flatpak run --branch=stable org.mozilla.firefox @@u %u @@")
            .arguments(for: "https://a/", entry: entry, options: ["-P", "work"])
            == ["/usr/bin/flatpak", "run", "--branch=stable", "org.mozilla.firefox", "-P", "work", "@@u", "https://a/", "@@"])
    }
}
