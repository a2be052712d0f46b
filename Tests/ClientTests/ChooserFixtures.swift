import TestSupport

extension XDGTree {
    /// The desk the chooser tests offer: `browser.desktop` (the https
    /// default), and `firefox.desktop` with a private-window action and one
    /// Firefox profile named `profile`.
    func installBrowsers(profile: String) throws {
        try app("browser.desktop", schemes: ["http", "https"], extra: "Icon=web-browser")
        try app("firefox.desktop", schemes: ["https"], exec: "recorder firefox %u", extra: """
            Icon=firefox
            Actions=new-private-window;

            [Desktop Action new-private-window]
            Name=New Private Window
            Exec=recorder firefox-private --private-window %u
            """)
        try write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=browser.desktop;\n")
        try write("home/.mozilla/firefox/profiles.ini", "[Profile0]\nName=\(profile)\nPath=a.work\n")
    }
}
