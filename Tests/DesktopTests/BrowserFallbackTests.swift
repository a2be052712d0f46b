import Foundation
import Testing
import TestSupport
import XDG

@testable import Desktop

/// Which application gets the links no rule decides when the dispatcher is
/// the scheme's only default (a settings panel put it there alone): the rule
/// `ApplicationCatalog.fallbackApplication` documents, one step per case.
@Suite struct BrowserFallbackTests {
    static func fallback(_ tree: XDGTree, _ scheme: String = "https") -> (String, ApplicationCatalog.FallbackReason)? {
        let catalog = try! DesktopDatabase(environment: tree.environment).catalog()
        return catalog.fallbackApplication(forScheme: scheme, system: DesktopDatabase.system(path: tree.environment["PATH"]))
            .map { ($0.entry.id, $0.reason) }
    }

    func desk() throws -> XDGTree {
        let tree = try XDGTree()
        try tree.app("org.openurld.Dispatcher1.desktop", schemes: ["http", "https"], exec: "openurl %U", extra: "DBusActivatable=true")
        try tree.app("aaa-other.desktop", schemes: ["https", "zoommtg"])
        try tree.app("firefox.desktop", schemes: ["https"], extra: "Categories=Network;WebBrowser;")
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop\n")
        return tree
    }

    @Test func aWebBrowserBeatsTheFirstClaimant() throws {
        let tree = try desk()
        let chosen = try #require(Self.fallback(tree))
        #expect(chosen.0 == "firefox.desktop" && chosen.1 == .webBrowser)
    }

    @Test func theDefaultForPagesBeatsEveryClaimant() throws {
        let tree = try desk()
        try tree.write("data/applications/chromium.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Chromium
            Exec=recorder chromium %u
            MimeType=text/html;
            Categories=WebBrowser;
            """)
        try tree.write("config/mimeapps.list", """
            [Default Applications]
            x-scheme-handler/https=org.openurld.Dispatcher1.desktop
            text/html=org.openurld.Dispatcher1.desktop;chromium.desktop;

            """)
        let chosen = try #require(Self.fallback(tree))
        #expect(chosen.0 == "chromium.desktop" && chosen.1 == .pageDefault)
    }

    @Test func aDefaultKeptBehindTheDispatcherStillWins() throws {
        let tree = try desk()
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;aaa-other.desktop;\n")
        let chosen = try #require(Self.fallback(tree))
        #expect(chosen.0 == "aaa-other.desktop" && chosen.1 == .listedAfterDispatcher)
    }

    /// The record (a person's choice in the preferences window, or the
    /// default `set-default` replaced) comes before what the list names after the dispatcher.
    @Test func theRecordBeatsTheListAfterTheDispatcher() throws {
        let tree = try desk()
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;aaa-other.desktop;\n")
        try tree.write("state/openurld/previous-defaults.list", "[Previous Defaults]\nx-scheme-handler/https=firefox.desktop\n")
        let database = DesktopDatabase(environment: tree.environment)
        let chosen = try #require(try database.fallbackApplication(forScheme: "https", system: DesktopDatabase.system(path: tree.environment["PATH"])))
        #expect(chosen.entry.id == "firefox.desktop" && chosen.reason == .previousDefault)
    }

    /// When openurld is not the default, the default decides, whatever the record says.
    @Test func anotherDefaultBeatsTheRecord() throws {
        let tree = try desk()
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=aaa-other.desktop\n")
        try tree.write("state/openurld/previous-defaults.list", "[Previous Defaults]\nx-scheme-handler/https=firefox.desktop\n")
        let database = DesktopDatabase(environment: tree.environment)
        let chosen = try #require(try database.fallbackApplication(forScheme: "https", system: DesktopDatabase.system(path: tree.environment["PATH"])))
        #expect(chosen.entry.id == "aaa-other.desktop" && chosen.reason == .schemeDefault)
    }

    @Test func otherSchemesKeepTheSpecificationsOrder() throws {
        let tree = try desk()
        let chosen = try #require(Self.fallback(tree, "zoommtg"))
        #expect(chosen.0 == "aaa-other.desktop" && chosen.1 == .schemeClaimant)
    }
}
