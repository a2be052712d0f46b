import Routing

/// What one walk's steps learn as it goes, read by later steps and by the
/// route at its end: its deadline (moved when the person is asked), the
/// application launched, the answer to remember, the URL the person chose
/// and the activation token (a fresh one from the chooser).
///
/// One object, because the steps are closures and a local function that
/// change these: as separate captured variables, each was a box of its own,
/// allocated on every walk.
final class WalkProgress {
    var end: ContinuousClock.Instant
    var launched: String?
    var remembered: RememberedChoice?
    var chosenURL: ValidatedURL?
    var token: String?

    init(end: ContinuousClock.Instant, token: String?) {
        self.end = end
        self.token = token
    }
}
