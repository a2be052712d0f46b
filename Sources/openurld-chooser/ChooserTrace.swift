import Glibc

/// `OPENURLD_CHOOSER_TRACE=1` makes the chooser write `EVENT SECONDS` (the
/// monotonic clock) to standard error at each step of showing a window
/// (started, gtk, request, mapped): how `bench/run` times the path from
/// `OpenURL` to the window on screen, and where that time goes.
enum ChooserTrace {
    nonisolated(unsafe) static var enabled = false  // set once in main, before any other thread starts

    static func mark(_ event: String) {
        guard enabled else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let line = "\(event) \(now.tv_sec).\(String(now.tv_nsec + 1_000_000_000).dropFirst())\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    static func mapped() { mark("mapped") }
}
