import Dispatch
import DispatcherAPI
import Posix
import Router
import Routing
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
    /// The menu program and its arguments. In an argument, `%h` becomes the
    /// URL's host, `%u` the URL shortened to fit a prompt, and `%w` its
    /// warnings ("⚠ not encrypted · NOT apple.com: ", or nothing), each as
    /// the window shows it (the display policy, escaped for display); e.g.
    /// `--prompt '%wOpen %u with: '`.
    public let command: [String]
    let environment: [String: String]
    let warn: @Sendable (String) -> Void
    private let turn = Mutex<[CheckedContinuation<Void, Never>]?>(nil)

    /// The line that means "use the default application" (followed by the
    /// default's name in parentheses, when it is known).
    public static let useDefaultLine = "Use the default application"

    /// How long `%u` may be: a prompt shares its line with what is typed.
    public static let shortenedURLLength = 60

    /// A chooser running the menu `command` (its `%h`, `%u`, `%w` filled in)
    /// with `environment`, telling `warn` why when the menu cannot run (the
    /// request is then cancelled: nothing opens).
    public init(command: [String], environment: [String: String], warn: @escaping @Sendable (String) -> Void) {
        self.command = command
        self.environment = environment
        self.warn = warn
    }

    /// A target's line: its name and, in brackets, its written form
    /// (`firefox (work)  [firefox.desktop@work]`). Printable text only: every
    /// menu draws it as it is (dmenu drew a tab as a box), and `displayable`
    /// has escaped any control or bidi character a name carried.
    public static func line(for candidate: ChooserCandidate) -> String {
        displayable(candidate.name) + "  [" + displayable(candidate.target.description) + "]"
    }

    /// The default's line, naming it when the daemon said which it is.
    public static func defaultLine(for request: ChoiceRequest) -> String {
        useDefaultLine + (request.defaultApplication.map { " (" + displayable($0.name) + ")" } ?? "")
    }

    /// The lines offered for a request, in order: each target's, then the default's.
    public static func lines(for request: ChoiceRequest) -> [String] {
        request.candidates.map(line(for:)) + [defaultLine(for: request)]
    }

    /// What a printed line means: the target whose line it is exactly (or,
    /// for menus that print only what was typed, whose name it is), the
    /// default, or (anything else) cancel.
    public static func reply(to printed: String, for request: ChoiceRequest) -> DispatcherAPI.ChooserReply {
        let line = printed.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if line == defaultLine(for: request) || line == useDefaultLine { return .useDefault }
        guard let candidate = request.candidates.first(where: { Self.line(for: $0) == line })
            ?? request.candidates.first(where: { $0.name == line }) else {
            return .cancelled
        }
        return .chosen(candidate.target, url: request.url.text, activationToken: nil, remember: .none)
    }

    /// An argument with `%h`, `%u` and `%w` filled in for `request`.
    public static func argument(_ template: String, for request: ChoiceRequest) -> String {
        guard template.contains("%") else { return template }
        let presentation = LinkPresentation(request.url, linkText: request.linkText)
        let warnings = presentation.warnings.isEmpty ? "" : "⚠ " + presentation.warnings.map(\.brief).joined(separator: " · ") + ": "
        var filled = ""
        var rest = template[...]
        // One pass, so that a host containing "%u" is not filled in again.
        while let percent = rest.firstIndex(of: "%") {
            filled += rest[..<percent]
            let code = rest.index(after: percent)
            guard code < rest.endIndex else { filled += "%"; rest = rest[code...]; break }
            switch rest[code] {
            case "h": filled += displayable(presentation.host)
            case "u": filled += displayable(presentation.shortened(to: shortenedURLLength))
            case "w": filled += displayable(warnings)
            default: filled += rest[percent...code]
            }
            rest = rest[rest.index(after: code)...]
        }
        return filled + rest
    }

    /// Shows the menu for `request` once every earlier menu has closed,
    /// closing it `timeout` after the request came (just before the daemon
    /// stops waiting; by default its default wait) and answering
    /// "unanswered"; a request whose time ran out while it waited is
    /// answered so without a menu.
    public func choose(_ request: ChoiceRequest, within timeout: Duration? = nil) async -> DispatcherAPI.ChooserReply {
        // Nanoseconds as a plain integer across the wait (`nanosecondsClamped`).
        let deadline = DispatchTime.now().uptimeNanoseconds &+ (timeout ?? DispatcherAPI.chooserDeadline).nanosecondsClamped
        await waitForTurn()
        defer { endTurn() }
        // The daemon stopped waiting while earlier menus were up: showing
        // this one now would ask about a link that can no longer be opened.
        let now = DispatchTime.now().uptimeNanoseconds
        guard deadline > now &+ 100_000_000 else { return .unanswered }
        let left = Duration.nanoseconds(Int64(clamping: deadline - now))
        guard let program = command.first, let path = findExecutable(program, path: environment["PATH"]) else {
            warn("the menu program '\(command.first ?? "")' is not on PATH")
            return .cancelled
        }
        let arguments = [program] + command.dropFirst().map { Self.argument($0, for: request) }
        let input = Array((Self.lines(for: request).joined(separator: "\n") + "\n").utf8)
        let run: CapturedRun
        do {
            run = try await runCapturingOutput(
                path, arguments: arguments, environment: environment.map { $0.key + "=" + $0.value }, input: input,
                deadline: left)
        } catch {
            warn("\(error)")
            return .cancelled
        }
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
