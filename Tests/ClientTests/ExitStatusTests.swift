import OpenURLCommand
import Routing
import Testing

/// One mapping from a walk's outcome to `openurl`'s exit status, for both
/// ways of opening, keeping the statuses the README documents.
@Suite struct ExitStatusTests {
    @Test(arguments: Outcome.allCases)
    func eachOutcomeHasOneStatusPerPath(outcome: Outcome) {
        let through = ExitStatus(outcome, path: .throughDaemon)
        let directly = ExitStatus(outcome, path: .directly)
        switch outcome {
        case .handled, .opened:
            #expect(through == .accepted && directly == .accepted)
        case .discarded, .refused, .undecided:
            #expect(through == .rejected && directly == .rejected)
        case .noApplication, .launchFailed:
            // Through openurld a refusal like any other; directly, openurld was
            // unreachable and opening without it failed too.
            #expect(through == .rejected && directly == .unreachable)
        }
        // Accepted exactly when the contract says the outcome is.
        #expect((through == .accepted) == outcome.isAccepted)
    }
}
