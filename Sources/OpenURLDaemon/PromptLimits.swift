import Router
import Routing
import Synchronization

/// The questions on screen, bounded per caller and in all: one connection
/// cannot bury the person in windows (`Application.Open` is answered as soon
/// as a question is shown, so the per-connection bound on walks does not bound
/// questions), nor hold the daemon's calls to the chooser.
///
/// A second question about a URL already on screen joins the first: the
/// person answers once, the first walk opens the link once, and the joined
/// walks are answered `discarded` (they asked for what is being done).
final class PromptLimits: Sendable {
    /// Questions one caller may have open at once.
    static let perCaller = 4
    /// Questions open at once, from every caller.
    static let inAll = 16

    private struct Open {
        var byCaller: [String: Int] = [:]
        var total = 0
        /// The question on screen for each URL, and who waits on its answer.
        var shown: [String: Task<Choice, Never>] = [:]
    }

    private let state = Mutex(Open())
    /// Who asks the person.
    private let chooser: any Chooser

    /// Bounds on the questions `chooser` is asked.
    init(chooser: any Chooser) {
        self.chooser = chooser
    }

    /// A chooser for one walk of `caller`'s that stays within the bounds.
    /// (Two words and a string: it fits an existential's inline buffer, so
    /// making one for every walk allocates nothing.)
    func chooser(for caller: String) -> any Chooser {
        Bounded(limits: self, caller: caller)
    }

    private enum Admission {
        case ask(Task<Choice, Never>)
        case join(Task<Choice, Never>)
        case refuse(String)
    }

    private func admit(_ request: ChoiceRequest, timeout: Duration, caller: String, chooser: any Chooser) -> Admission {
        state.withLock { open in
            if let shown = open.shown[request.url.text] { return .join(shown) }
            if open.byCaller[caller, default: 0] >= Self.perCaller {
                return .refuse("\(Self.perCaller) questions from this caller are on screen already; not asked")
            }
            if open.total >= Self.inAll { return .refuse("\(Self.inAll) questions are on screen already; not asked") }
            open.byCaller[caller, default: 0] += 1
            open.total += 1
            let task = Task { await chooser.choose(request, timeout: timeout) }
            open.shown[request.url.text] = task
            return .ask(task)
        }
    }

    private func close(_ request: ChoiceRequest, caller: String) {
        state.withLock { open in
            open.byCaller[caller]! -= 1
            if open.byCaller[caller] == 0 { open.byCaller[caller] = nil }
            open.total -= 1
            open.shown[request.url.text] = nil
        }
    }

    private struct Bounded: Chooser {
        let limits: PromptLimits
        let caller: String

        func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
            switch limits.admit(request, timeout: timeout, caller: caller, chooser: limits.chooser) {
            case .refuse(let reason):
                // Not asked is not answered: nothing is opened for it.
                return .lost(reason)
            case .join(let shown):
                switch await shown.value {
                case .lost(let reason): return .lost(reason)
                case .unanswered(let wait): return .unanswered(after: wait)
                default: return .cancelled
                }
            case .ask(let task):
                let choice = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
                limits.close(request, caller: caller)
                return choice
            }
        }
    }
}
