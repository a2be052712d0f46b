import ChooserService
import DispatcherAPI
import Foundation
import Router
import Routing
import Spawn
import Testing
import TestSupport
import XDG

/// The dmenu adapter with the menu programs Debian ships, each run with the
/// adapter's own default command line (DmenuOptions.knownMenus) and driven
/// as a person drives it: a few letters to filter, then Enter or Esc. The X11
/// menus (dmenu, rofi, bemenu) run on Xvfb and get keys through XTEST once
/// their window is mapped; fuzzel runs on a headless sway (it needs
/// wlr-layer-shell) and gets keys from wtype once it has drawn its first frame.
///
/// What it shows: each menu draws the offered lines and prints the chosen one
/// back exactly, so that the adapter answers with the target the person
/// picked; Esc cancels; the last line uses the default.
///
/// wofi is not driven: it binds its keyboard only after wtype's virtual
/// keyboard appears, so the first keys race it (seen: the filter lost and
/// Enter kept, choosing the wrong line), and a headless sway without uinput
/// has no keyboard that stays. Its dmenu mode prints the selected line as the
/// others do; the line format is the same for all.
@Suite(.serialized) struct RealMenuTests {
    static let work = Target.profile("firefox.desktop", profile: "work")

    static func request() throws -> ChoiceRequest {
        var request = ChoiceRequest(url: try ValidatedURL("http://docs.example.com/a"), candidates: [
            ChooserCandidate(target: .application("browser.desktop"), name: "Web Browser", icon: ""),
            ChooserCandidate(target: .application("firefox.desktop"), name: "Firefox", icon: ""),
            ChooserCandidate(target: work, name: "Firefox (work)", icon: ""),
        ])
        request.defaultApplication = request.candidates[0]
        return request
    }

    static func command(_ menu: String) -> [String] { DmenuOptions.knownMenus.first { $0[0] == menu }! }

    /// One question through `chooser`, answered by `drive` (which waits for the menu and types).
    func ask(_ chooser: DmenuChooser, _ drive: () async throws -> Void) async throws -> DispatcherAPI.ChooserReply {
        let request = try Self.request()
        async let reply = chooser.choose(request, within: .seconds(30))
        try await drive()
        return await reply
    }

    @Test(arguments: ["dmenu", "rofi", "bemenu"])
    func anX11MenuOpensWhatThePersonPicks(menu: String) async throws {
        try await withXvfb { x in
            let home = try makeTemporaryDirectory(prefix: "openurld-menu")
            let environment = ["DISPLAY": x.display, "PATH": "/usr/bin:/bin", "HOME": home, "BEMENU_BACKEND": "x11", "LANG": "C.UTF-8"]
            let chooser = DmenuChooser(command: Self.command(menu), environment: environment) { Issue.record("\(menu) cannot run: \($0)") }
            func typing(_ keys: [String]) -> () async throws -> Void {
                return {
                    let mapped = try await run(["timeout", "20", "xdotool", "search", "--sync", "--onlyvisible", "--class", menu], environment: environment)
                    #expect(mapped.status == 0, "\(menu) never showed its window: \(mapped.stderr)")
                    let typed = try await run(["xdotool", "key", "--delay", "30"] + keys, environment: environment)
                    #expect(typed.status == 0, "\(typed.stderr)")
                }
            }
            let url = "http://docs.example.com/a"
            #expect(try await ask(chooser, typing(["w", "o", "r", "k", "Return"]))
                == .chosen(Self.work, url: url, activationToken: nil, remember: .none), "\(menu)")
            #expect(try await ask(chooser, typing(["d", "e", "f", "a", "u", "l", "t", "Return"])) == .useDefault, "\(menu)")
            #expect(try await ask(chooser, typing(["Escape"])) == .cancelled, "\(menu)")
        }
    }

    @Test func fuzzelOnWaylandOpensWhatThePersonPicks() async throws {
        try await withSway { sway in
            let home = try makeTemporaryDirectory(prefix: "openurld-menu")
            let log = home + "/wayland.log"
            var environment = sway.environment.merging(["PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "MENU_LOG": log]) { $1 }
            environment["XDG_CACHE_HOME"] = home + "/cache"
            // fuzzel as the adapter runs it, with its protocol log: the first
            // buffer it attaches after configuring says it is on screen.
            let command = ["sh", "-c", "WAYLAND_DEBUG=1 exec \"$0\" \"$@\" 2>\"$MENU_LOG\""] + Self.command("fuzzel")
            let chooser = DmenuChooser(command: command, environment: environment) { Issue.record("fuzzel cannot run: \($0)") }
            func typing(_ arguments: [String]) -> () async throws -> Void {
                return {
                    let clock = ContinuousClock()
                    let end = clock.now + .seconds(20)
                    while clock.now < end {
                        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                        if let configured = text.range(of: "ack_configure("), text[configured.upperBound...].contains(".attach(") { break }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    let typed = try await run(["wtype"] + arguments, environment: environment)
                    #expect(typed.status == 0, "\(typed.stderr)")
                    try? FileManager.default.removeItem(atPath: log)
                }
            }
            let url = "http://docs.example.com/a"
            #expect(try await ask(chooser, typing(["work", "-k", "Return"])) == .chosen(Self.work, url: url, activationToken: nil, remember: .none))
            #expect(try await ask(chooser, typing(["default", "-k", "Return"])) == .useDefault)
            #expect(try await ask(chooser, typing(["-k", "Escape"])) == .cancelled)
        }
    }
}
