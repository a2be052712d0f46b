import DBus
import Routing
import Testing

@testable import OpenURLCommand

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

    /// `OpenReport` spells the one error name it tells apart (it is compiled
    /// into the front, which cannot use the DBus module): it must be the
    /// DBus module's `InvalidArgs`, and every other error leaves the URL unopened.
    @Test func anErrorAnswerIsAUsageErrorOnlyForInvalidArguments() {
        #expect(OpenReport.status(ofError: ErrorName.invalidArgs.rawValue) == .usage)
        for name in [ErrorName.failed, .accessDenied, .limitsExceeded, .unknownMethod, .noMemory] {
            #expect(OpenReport.status(ofError: name.rawValue) == .unreachable, "\(name)")
        }
    }
}
