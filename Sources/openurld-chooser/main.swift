import CGtk
import ChooserService
import CommandLineOptions
import DispatcherAPI
import Glibc
import Spawn

// Wiring only: with --service, serve org.openurld.Chooser1 (D-Bus
// activation starts it so) and show a window per request; without, show
// the preferences window (the application grid starts it so).
let environment = currentEnvironment()

let given: ParsedArguments
let options: ChooserOptions
do throws(UsageError) {
    given = try ParsedArguments(Array(currentArguments().dropFirst()), options: chooserOptions, words: .none)
    options = try ChooserOptions(given)
} catch {
    _ = error.report(by: "openurld-chooser").withCString { write(2, $0, strlen($0)) }
    exit(2)
}
if given.has(Option.version) {
    print("openurld-chooser \(DispatcherAPI.version)")
    exit(0)
}
if given.has(Option.help) {
    print(chooserHelp)
    exit(0)
}
let service = given.has(serviceOption)
let (address, idleExit) = (options.address, options.idleExit)
ChooserTrace.enabled = environment["OPENURLD_CHOOSER_TRACE"] != nil
ChooserTrace.mark("started")

// The program name GDK puts in startup IDs and WM_CLASS.
g_set_prgname("openurld-chooser")
let loop = g_main_loop_new(nil, 0)!
if service {
    // The bus is joined while GTK starts, on another thread: a request that
    // arrives early waits in the main loop's queue until GTK is ready.
    // Everything the task needs is captured here: touching main.swift's
    // globals from it would wait for the main actor, whose thread runs GLib.
    Task.detached { [address, idleExit, environment] in
        let status = await ChooserService.run(
            program: "openurld-chooser", address: address, environment: environment, idleExit: idleExit, log: ChooserService.journalLine
        ) { request in
            ChooserTrace.mark("request")
            return await withCheckedContinuation { continuation in
                onMain { ChooserWindow.show(request.choice, closingAfter: request.answerTime()) { continuation.resume(returning: $0) } }
            }
        }
        exit(status)
    }
}
gtk_init()
adw_init()
ChooserTrace.mark("gtk")
if !service {
    PreferencesWindow.show(environment: environment) { g_main_loop_quit(loop) }
}
g_main_loop_run(loop)
