import DBus
import DispatcherAPI
import Router
import Routing
import XDG

/// Asks the person through `org.openurld.Chooser1` on the session bus,
/// started by D-Bus activation when it is not running.
///
/// The chooser is any program that owns the name, so its answer is checked
/// like a handler's: a target that was not offered, a URL that is not valid,
/// or a reply that cannot be read is an answer lost, and nothing is opened.
public struct BusChooser: Chooser {
    let connection: Connection

    /// A chooser asking over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// Asks the chooser service, waiting at most `timeout` (the service is started by D-Bus activation).
    public func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
        let reply: [Value]
        let clock = ContinuousClock()
        let start = clock.now
        do {
            reply = try await connection.call(
                DispatcherAPI.chooserBusName, DispatcherAPI.chooserObjectPath, DispatcherAPI.chooserInterface,
                DispatcherAPI.chooseMember, DispatcherAPI.ChooserRequest(request, timeout: timeout).arguments, timeout: timeout)
        } catch {
            // NoReply is also the bus's word for a chooser that left without
            // answering: only a wait that ran its course is "nobody answered".
            let waitedOut = clock.now - start + .milliseconds(50) >= timeout
            return Self.choice(from: error, whileCancelled: Task.isCancelled, waited: timeout, waitedOut: waitedOut)
        }
        return Self.choice(from: reply, for: request, waited: timeout)
    }

    /// What a failed `Choose` means: no chooser installed passes the step on;
    /// anything after the chooser was reached (it left, it took too long, it
    /// answered with an error, the daemon is stopping) loses the answer.
    static func choice(from error: DBusError, whileCancelled cancelled: Bool, waited: Duration, waitedOut: Bool) -> Choice {
        if cancelled { return .lost("the daemon is shutting down") }
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            return .unavailable("no chooser is installed (\(DispatcherAPI.chooserBusName) cannot be started: \(error.message))")
        case .noReply where waitedOut:
            // The same as a chooser that closed its window in time and said so.
            return .unanswered(after: waited)
        case .noReply:
            return .lost("the chooser left without answering (\(error.message))")
        default:
            return .lost("the chooser failed: \(error.description)")
        }
    }

    /// Reads and checks the chooser's answer to `request`.
    static func choice(from reply: [Value], for request: ChoiceRequest, waited: Duration) -> Choice {
        let answer: DispatcherAPI.ChooserReply
        do { answer = try .init(reply: reply, requested: request.url.text) } catch {
            return .lost("the chooser's answer cannot be read: \(error.message)")
        }
        switch answer {
        case .cancelled: return .cancelled
        case .useDefault: return .useDefault
        case .unanswered: return .unanswered(after: waited)
        case .chosen(let target, let text, let token, let remember):
            guard request.candidates.contains(where: { $0.target == target }) else {
                return .lost("the chooser chose \(target), which was not offered")
            }
            guard let url = try? ValidatedURL(text) else { return .lost("the chooser returned a URL that is not valid") }
            let scope: RememberScope = switch remember {
            case .none: .none
            case _ where request.remember == nil: .none
            // The walk remembers for the address opened, which may be edited:
            // it decides whether that host has a domain to remember.
            default: remember
            }
            if let token, !token.isEmpty, let problem = DispatcherAPI.activationTokenProblem(token) {
                return .lost("the chooser's activation token \(problem)")
            }
            return .target(target, url: url, activationToken: token.flatMap { $0.isEmpty ? nil : $0 }, remember: scope)
        }
    }
}
