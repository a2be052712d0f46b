import CDBus
import CommandLineOptions
import CFront
import Routing
import SafeText

// The fast front of `openurl`: the plain open, `openurl [-q] [--ask] URL...`, and its usage errors,
// in one blocking call per URL on libdbus, with no Swift runtime to start.
// Everything else is the full CLI's, reached by exec (README, "The openurl command").

@_cdecl("main")
func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let raw = (1..<Int(max(argc, 1))).map { argv[$0] }
    let arguments = raw.map { EscapedBytes.decode(cString: $0!) }
    let plan = Plan(arguments)
    // As the full CLI: a closed or full standard output loses the line, and the status is 0.
    if case .version = plan { _ = System.writeOutput("openurl \(packageVersion)\n"); return 0 }
    if case .mistake(let error) = plan {
        System.error(error.description, hint: error.hint(for: "openurl"))
        return ExitStatus.usage.rawValue
    }
    guard case .open(let urls, let quiet, let ask) = plan,
          let address = System.variable("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty,
          let bus = try? Bus(address: address)
    else {
        // Anything but the plain open; or no session bus address in the
        // environment (the full CLI looks further, XDG_RUNTIME_DIR/bus); or a
        // bus that cannot be joined (the full CLI tries once more, then opens
        // directly): the full CLI, with the command line as it came.
        return System.handOn(raw)
    }
    let notifies = OpenReport.notifies(quiet: quiet, standardErrorIsATerminal: System.standardErrorIsATerminal, variable: System.variable)
    let token = ActivationToken.inherited(System.variable).flatMap { ActivationToken.problem($0) == nil ? $0 : nil }
    var worst = ExitStatus.accepted
    for (index, url) in urls.enumerated() {
        let status: ExitStatus
        do throws(BusError) {
            let reply = try bus.call(Request.openURL(url.text, activationToken: token, ask: ask, notifyFailure: notifies),
                                     timeout: Contract.longestWalkMilliseconds)
            defer { dbus_message_unref(reply) }
            let (read, signature) = Reply.outcome(of: reply, requested: url.text)
            guard let result = read else {
                let detail = "expected arguments of type '\(Contract.replySignature)', got '\(signature)'"
                throw BusError(name: Contract.failed, message: OpenReport.unreadableAnswer(detail))
            }
            if let line = OpenReport.line(url.text, as: result.finalURL, result.outcome, handler: result.handler,
                                          application: result.application, message: result.message, via: "openurld", verbose: false) {
                System.error(line)
            }
            status = OpenReport.status(result.outcome, accepted: result.accepted)
        } catch where error.name == Contract.noReply {
            // openurld had the URL and stopped before saying what it decided: not opened again.
            System.error(OpenReport.stoppedBeforeAnsweringLine(url.text, error.message))
            if notifies { _ = System.run(as: OpenReport.reportFailureProgram, [url.text, OpenReport.stoppedBeforeAnswering(error.message)]) }
            status = .unreachable
        } catch where error.isUnreachable {
            // The daemon is gone and cannot be started: the full CLI opens the rest itself.
            bus.close()
            // Before any URL was sent, the whole command line goes on as it came.
            guard index > 0 else { return System.handOn(raw) }
            return max(worst.rawValue, handOnRest(urls[index...], quiet: quiet, ask: ask))
        } catch {
            System.error("\(url.text): \(error.message)")
            if notifies { _ = System.run(as: OpenReport.reportFailureProgram, [url.text, error.message]) }
            status = OpenReport.status(ofError: error.name)
        }
        if status.rawValue > worst.rawValue { worst = status }
    }
    bus.close()
    return worst.rawValue
}

/// The URLs not yet opened, run through the full CLI with the same flags.
func handOnRest(_ urls: ArraySlice<ValidatedURL>, quiet: Bool, ask: Bool) -> Int32 {
    var words: [String] = []
    if quiet { words.append("--quiet") }
    if ask { words.append("--ask") }
    words.append("--")
    return System.run(as: "openurl", words + urls.map { $0.text })
}
