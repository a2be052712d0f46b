import Glibc

/// The clock of a walk's deadline, and of when the daemon last walked:
/// moments as a `Duration` on `CLOCK_BOOTTIME`, the clock `ContinuousClock`
/// reads on Linux, read here directly.
///
/// `ContinuousClock.Instant` is not frozen: outside the concurrency library
/// its size is known only at run time, so every one a walk held across an
/// `await` was an allocation from the task (six a walk in `Router.open`
/// alone), every `+`, `-` and `<` on one a call through its type's
/// metadata, and a struct holding one (the dispatcher's state) had a layout
/// known only at run time too. A `Duration` is two words; and reading the
/// clock through `ContinuousClock` took some 25 instruction-cache lines.
public enum WalkClock {
    /// Now.
    public static var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The moment `time` as an instant of the continuous clock, for those
    /// that take one (`LaunchDeadline`). Never inlined: inlined into an
    /// async function, the instant would be that function's allocation again.
    @inline(never)
    static func instant(_ time: Duration) -> ContinuousClock.Instant { ContinuousClock.now.advanced(by: time - now) }
}
