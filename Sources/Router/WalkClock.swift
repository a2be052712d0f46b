/// The clock of a walk's deadline, and of when the daemon last walked:
/// moments as the `Duration` since a fixed origin on the continuous clock.
///
/// `ContinuousClock.Instant` is not frozen: outside the concurrency library
/// its size is known only at run time, so every one a walk held across an
/// `await` was an allocation from the task (six a walk in `Router.open`
/// alone), and every `+`, `-` and `<` on one a call through its type's
/// metadata; and a struct holding one (the dispatcher's state) has a
/// layout known only at run time too. A `Duration` is two words.
public enum WalkClock {
    /// Where the durations count from: the first reading.
    private static let origin = ContinuousClock.now

    /// Now. Never inlined, and neither is `instant`: inlined into an async
    /// function, their instants would be that function's allocations again.
    public static var now: Duration {
        @inline(never) get { origin.duration(to: .now) }
    }

    /// The moment `time` as an instant of the continuous clock, for those
    /// that take one (`LaunchDeadline`).
    @inline(never)
    static func instant(_ time: Duration) -> ContinuousClock.Instant { origin.advanced(by: time) }
}
