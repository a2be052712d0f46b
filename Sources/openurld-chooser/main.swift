import CGtk
import ChooserService
import DispatcherAPI
import Glibc
import Spawn

// Wiring only: with --service, serve org.openurld.Chooser1 (D-Bus
// activation starts it so) and show a window per request; without, show
// the preferences window (the application grid starts it so).
let environment = currentEnvironment()

func complain(_ problem: String) {
    let message = "openurld-chooser: \(problem)\nTry 'openurld-chooser --help' for more information.\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
}

var arguments = Array(CommandLine.arguments.dropFirst())[...]
var service = false
var address: String?
var idleExit: Duration? = .seconds(30)
while let argument = arguments.popFirst() {
    switch argument {
    case "--service": service = true
    case "--address": address = arguments.popFirst()
    case "--idle-exit":
        guard let seconds = arguments.popFirst().flatMap(Double.init), seconds >= 0 else {
            complain("--idle-exit takes a number of seconds")
            exit(2)
        }
        idleExit = seconds == 0 ? nil : .milliseconds(Int64(seconds * 1000))
    case "--version":
        print("openurld-chooser \(DispatcherAPI.version)")
        exit(0)
    case "-h", "--help":
        print(chooserHelp)
        exit(0)
    default:
        complain("unknown argument '\(argument)'")
        exit(2)
    }
}
ChooserTrace.enabled = environment["OPENURLD_CHOOSER_TRACE"] != nil

// The program name GDK puts in startup IDs and WM_CLASS.
g_set_prgname("openurld-chooser")
gtk_init()
adw_init()
let loop = g_main_loop_new(nil, 0)!
if service {
    // Everything the task needs is captured here: touching main.swift's
    // globals from it would wait for the main actor, whose thread runs GLib.
    Task.detached { [address, idleExit, environment] in
        let status = await ChooserService.run(
            program: "openurld-chooser", address: address, environment: environment, idleExit: idleExit
        ) { request, _ in
            await withCheckedContinuation { continuation in
                onMain { ChooserWindow.show(request) { continuation.resume(returning: $0) } }
            }
        }
        exit(status)
    }
} else {
    PreferencesWindow.show(environment: environment) { g_main_loop_quit(loop) }
}
g_main_loop_run(loop)
