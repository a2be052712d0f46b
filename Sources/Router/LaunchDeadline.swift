/// The instant by which a launch must be done: the deadline of the walk it
/// belongs to.
///
/// A walk's one deadline has to reach through `URLOpener`, `Launcher`
/// and their D-Bus calls (an activatable app's `Open`, systemd's scope and
/// environment); a task-local carries it down without every layer passing it
/// on. Without one, each wait keeps its own limit.
public enum LaunchDeadline {
    /// The current walk's deadline, when there is one.
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// Runs `body` with `current` set to a walk's deadline, `end` on
    /// `WalkClock`. Never inlined: an async function that sets a task-local
    /// holds an optional `ContinuousClock.Instant`, a type whose size is known
    /// only at run time, and so allocates from the task on entry, whether
    /// or not it gets as far as setting one. A walk asking handlers never does.
    @inline(never)
    static func during<Value: Sendable>(walkEndingAt end: Duration, _ body: () async -> Value) async -> Value {
        await $current.withValue(WalkClock.instant(end)) { await body() }
    }

    /// `limit`, or less when the deadline comes sooner; `nil` when it has passed.
    package static func timeout(atMost limit: Duration) -> Duration? {
        guard let deadline = current else { return limit }
        let remaining = deadline - .now
        return remaining > .zero ? min(limit, remaining) : nil
    }
}
