import Glibc

/// A thread's scheduling priority, its nice value (-20 to 19, lower runs
/// sooner). On Linux it belongs to each thread, and a new thread starts
/// with its creator's: a thread made from a libdispatch worker takes that
/// worker's, which libdispatch sets from the work's quality of service
/// (nice -2 for `userInitiated`, where the process may lower it: as root).
public enum ThreadPriority {
    /// The calling thread's nice value.
    public static var current: Int32 { priority(of: 0) }

    /// The process's nice value: its first thread's, what it was started
    /// with (`nice`, systemd's `Nice=`) unless it changed its own since.
    public static var process: Int32 { priority(of: id_t(getpid())) }

    /// Sets the calling thread's nice value.
    /// - Throws: `EACCES` (as `Errno`) when `value` is lower than the
    ///   thread's and the process may not lower it (neither `CAP_SYS_NICE`
    ///   nor an `RLIMIT_NICE` that allows it).
    public static func setCurrent(_ value: Int32) throws(Errno) {
        guard setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value) == 0 else { throw .current }
    }

    /// Gives the calling thread the process's nice value, as far as it
    /// may: raising it always succeeds, lowering it needs what
    /// `setCurrent` says.
    /// - Throws: `EACCES` (as `Errno`) when it may not lower it; the thread
    ///   keeps its own then.
    public static func takeProcessPriority() throws(Errno) {
        let wanted = process
        if current != wanted { try setCurrent(wanted) }
    }

    /// `getpriority` for one thread (0: the caller). Its failure (-1 and
    /// `errno`) is left unchecked: -1 is a nice value too, and for the
    /// caller, or the process's first thread while the process runs, it
    /// cannot fail.
    private static func priority(of thread: id_t) -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread)
    }
}
