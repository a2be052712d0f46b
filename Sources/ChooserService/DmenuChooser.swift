import Dispatch
import DispatcherAPI
import Router
import SafeText
import Spawn
import Synchronization
import XDG

/// A chooser for keyboard desktops: the candidates go, one per line, to a
/// menu program that speaks the dmenu convention (`fuzzel --dmenu`,
/// `wofi --dmenu`, `rofi -dmenu`, `bemenu`, `dmenu`), and the line it
/// prints back is the choice. Nothing printed, or a failing exit, cancels.
///
/// One menu is shown at a time; further requests wait their turn.
public final class DmenuChooser: Sendable {
    /// The menu program and its arguments; `%h` in an argument becomes the
    /// URL's host (escaped for display), e.g. `--prompt 'Open %h with: '`.
    public let command: [String]
    let environment: [String: String]
    private let turn = Mutex<[CheckedContinuation<Void, Never>]?>(nil)

    /// The line that means "use the default application".
    public static let useDefaultLine = "Use the default application"

    public init(command: [String], environment: [String: String]) {
        self.command = command
        self.environment = environment
    }

    /// The lines offered for a request, in order: each target's name and,
    /// after a tab, its written form (menus show it; the form is how the
    /// answer is read back), then the default.
    public static func lines(for request: ChoiceRequest) -> [String] {
        request.candidates.map { displayable($0.name) + "\t" + displayable($0.target.description) } + [useDefaultLine]
    }

    /// What a printed line means: the target whose line it is (matched on
    /// the written form after the last tab, so menus that print only the
    /// selected text work), the default, or (anything else) cancel.
    public static func reply(to printed: String, for request: ChoiceRequest) -> DispatcherAPI.ChooserReply {
        let line = printed.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if line == useDefaultLine { return .useDefault }
        let written = line.split(separator: "\t").last.map(String.init) ?? ""
        guard let candidate = request.candidates.first(where: { displayable($0.target.description) == written || $0.name == line }) else {
            return .cancelled
        }
        return .chosen(candidate.target, url: request.url.text, activationToken: nil, remember: .none)
    }

    /// Shows the menu for `request` once every earlier menu has closed,
    /// closing it `timeout` after the request came (just before the daemon
    /// stops waiting; by default its default wait) and answering
    /// "unanswered"; a request whose time ran out while it waited is
    /// answered so without a menu.
    public func choose(_ request: ChoiceRequest, within timeout: Duration? = nil) async -> DispatcherAPI.ChooserReply {
        // Nanoseconds as a plain integer across the wait: a `Duration` or a
        // clock instant held across this suspension was seen corrupted (its
        // `components` trapped) in debug builds of this toolchain.
        let (seconds, attoseconds) = (timeout ?? DispatcherAPI.chooserDeadline).components
        let deadline = DispatchTime.now().uptimeNanoseconds
            &+ UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000)
        await waitForTurn()
        defer { endTurn() }
        // The daemon stopped waiting while earlier menus were up: showing
        // this one now would ask about a link that can no longer be opened.
        let now = DispatchTime.now().uptimeNanoseconds
        guard deadline > now &+ 100_000_000 else { return .unanswered }
        let left = Duration.nanoseconds(Int64(clamping: deadline - now))
        guard let program = command.first, let path = findExecutable(program, path: environment["PATH"]) else {
            return .cancelled
        }
        let host = request.url.host.map { displayable($0.description) } ?? ""
        let arguments = [program] + command.dropFirst().map { $0.replacing("%h", with: host) }
        let input = Array((Self.lines(for: request).joined(separator: "\n") + "\n").utf8)
        guard let run = try? await runCapturingOutput(
            path, arguments: arguments, environment: environment.map { $0.key + "=" + $0.value }, input: input,
            deadline: left)
        else { return .cancelled }
        if run.timedOut { return .unanswered }
        guard run.status == 0 else { return .cancelled }
        return Self.reply(to: String(decoding: run.output, as: UTF8.self), for: request)
    }

    private func waitForTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mayGo = turn.withLock { waiting -> Bool in
                guard waiting != nil else {
                    waiting = []
                    return true
                }
                waiting!.append(continuation)
                return false
            }
            if mayGo { continuation.resume() }
        }
    }

    private func endTurn() {
        let next = turn.withLock { waiting -> CheckedContinuation<Void, Never>? in
            guard var queue = waiting, !queue.isEmpty else {
                waiting = nil
                return nil
            }
            let first = queue.removeFirst()
            waiting = queue
            return first
        }
        next?.resume()
    }
}
