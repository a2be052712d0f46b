import Routing

/// What one walk's steps learn as it goes, read by later steps and by the
/// route at its end: its deadline (moved when the person is asked), the
/// application launched, the answer to remember, the URL the person chose
/// and the activation token (a fresh one from the chooser).
///
/// One object, because the steps are closures and a local function that
/// change these: as separate captured variables, each was a box of its own,
/// allocated on every walk. Only the walk's own task touches it, one step
/// after another, so its properties skip the run-time exclusivity check.
final class WalkProgress {
    /// The deadline, on `WalkClock`.
    @exclusivity(unchecked) var end: Duration
    @exclusivity(unchecked) var launched: String?
    @exclusivity(unchecked) var remembered: RememberedChoice?
    @exclusivity(unchecked) var chosenURL: ValidatedURL?
    @exclusivity(unchecked) var token: String?

    init(end: Duration, token: String?) {
        self.end = end
        self.token = token
    }
}
