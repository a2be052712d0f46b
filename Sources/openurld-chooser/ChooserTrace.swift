import Glibc

/// `OPENURLD_CHOOSER_TRACE=1` makes the chooser write `mapped SECONDS` (the
/// monotonic clock) to standard error when a window is mapped: how
/// `bench/run` times the path from `OpenURL` to the window on screen.
enum ChooserTrace {
    nonisolated(unsafe) static var enabled = false  // set once in main, before GTK starts

    static func mapped() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let line = "mapped \(now.tv_sec).\(String(now.tv_nsec + 1_000_000_000).dropFirst())\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
