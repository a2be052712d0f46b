import DBus
import DispatcherAPI
import Glibc
import Routing

// The project's own D-Bus layer answering openurld's `OpenURL`, and nothing
// else: a floor for bench/run that says how much of the daemon's cost is the
// layer every call goes through, and how much is the walk the daemon adds.
//
//   dbus-layer-floor ADDRESS NAME refuse          the URL read and checked (ValidatedURL), false answered at once
//   dbus-layer-floor ADDRESS NAME refuse-in-task  the same, answered from a task on the loop, as the daemon's methods are
//   dbus-layer-floor ADDRESS NAME forward HANDLER the same HandleURL call as the daemon's, with its context,
//                                                 to HANDLER's /h0; true when it answers handled
//
// It owns NAME, exports openurld's object path and interface (the same
// messages as the daemon's), prints "ready" and serves until killed. No
// registry, rules, walk, fallback or log line: what is left is what the
// daemon cannot do without.

let arguments = CommandLine.arguments
guard arguments.count >= 4, ["refuse", "refuse-in-task", "forward"].contains(arguments[3]),
      arguments[3] != "forward" || arguments.count == 5
else {
    fail("usage: dbus-layer-floor ADDRESS NAME refuse|refuse-in-task|forward HANDLER", status: 2)
}
let mode = arguments[3]

/// The call's URL, checked as the daemon checks it.
@Sendable func url(of call: MethodCall) throws(DBusError) -> ValidatedURL {
    let text = try call.arguments.decode(String.self)
    do { return try ValidatedURL(text) } catch { throw .invalidArgs(error.message) }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

do {
    let connection = try await Connection.connect(to: arguments[1])
    connection.answerCallsOnLoop()
    let signature = DispatcherAPI.Signatures.openURL
    let method: ExportedMethod
    switch mode {
    case "refuse":
        method = ExportedMethod(DispatcherAPI.Member.openURL, arguments: signature.arguments, results: signature.results) { call throws(DBusError) in
            _ = try url(of: call)
            return [.boolean(false)]
        }
    case "refuse-in-task":
        method = ExportedMethod(DispatcherAPI.Member.openURL, arguments: signature.arguments, results: signature.results,
                                asyncAnswer: { call throws(DBusError) in
                                    _ = try url(of: call)
                                    return MethodAnswer([.boolean(false)])
                                })
    default:
        // The handler's unique name, looked up once: the daemon keeps its handlers' owners too.
        guard let handler = try await connection.owner(of: try BusName(arguments[4])) else {
            fail("dbus-layer-floor: nobody owns \(arguments[4])")
        }
        // Checked once (a literal, which traps if invalid), as the daemon
        // checks a handler's path when it registers.
        let path: ObjectPath = "/h0"
        // The timeout and the bound on unanswered calls are the daemon's
        // (Dispatcher.Configuration.handlerTimeout, Dispatcher.maximumCallsPerHandlerConnection),
        // written out rather than imported: the floor links no daemon library.
        method = ExportedMethod(DispatcherAPI.Member.openURL, arguments: signature.arguments, results: signature.results,
                                asyncAnswer: { call throws(DBusError) in
                                    let url = try url(of: call)
                                    let context = DispatcherAPI.HandlerContext(
                                        caller: call.sender.rawValue, callerAppID: "", originalURL: url.text, activationToken: nil)
                                    let reply = try await connection.call(
                                        handler, path, DispatcherAPI.handlerInterface, DispatcherAPI.Member.handleURL,
                                        body: try context.handleURLArguments(url: url.text), timeout: .seconds(5), awaitingAtMost: 64)
                                    return MethodAnswer([.boolean(try HandlerReply(reply: reply) == .handled)])
                                })
    }
    connection.export([ExportedInterface(DispatcherAPI.dispatcherInterface, methods: [method])], at: DispatcherAPI.objectPath)
    _ = try await connection.requestName(try BusName(arguments[2]))
    _ = write(1, "ready\n", 6)
    _ = await connection.disconnected()
} catch {
    fail("dbus-layer-floor: \(error)")
}
