import Glibc
import SafeText

/// Where the daemon's messages go. Library code takes one of these from its
/// caller and never prints on its own.
public struct Logger: Sendable {
    /// syslog priorities; journald reads them from a `<N>` line prefix.
    public enum Level: Int32, Sendable, Comparable {
        case error = 3, warning = 4, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// The most detailed level written.
    public let threshold: Level
    private let sink: @Sendable (Level, String) -> Void

    /// A logger passing every line at or above `threshold` to `sink`.
    public init(threshold: Level, sink: @escaping @Sendable (Level, String) -> Void) {
        self.threshold = threshold
        self.sink = sink
    }

    /// Writes `<N>message` lines to standard error, one `write` each so that
    /// lines from different threads never interleave. A message is one line:
    /// `log` has escaped every newline in it.
    public static func standardError(threshold: Level) -> Logger {
        Logger(threshold: threshold) { level, message in
            // One writev of prefix, text and newline: nothing is copied to join them.
            var text = message
            let prefix: StaticString = switch level {
            case .error: "<3>"
            case .warning: "<4>"
            case .info: "<6>"
            case .debug: "<7>"
            }
            let newline: StaticString = "\n"
            text.withUTF8 { body in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: 3) { parts in
                    parts[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: prefix.utf8Start), iov_len: prefix.utf8CodeUnitCount)
                    parts[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
                    parts[2] = iovec(iov_base: UnsafeMutableRawPointer(mutating: newline.utf8Start), iov_len: 1)
                    _ = writev(2, parts.baseAddress, 3)
                }
            }
        }
    }

    /// Discards everything.
    public static let silent = Logger(threshold: .error) { _, _ in }

    /// Passes `message` on with control, bidirectional and invisible
    /// characters escaped (`SafeText.displayable`): log lines carry peers' text.
    /// A line is cut at this many bytes of escaped text, so that no peer
    /// (a long host, a handler's long error) can flood the journal.
    public static let maximumLineBytes = 1000

    /// Logs `message` at `level`, escaped and cut to `maximumLineBytes`.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        let text = displayable(message())
        guard text.utf8.count > Self.maximumLineBytes else { return sink(level, text) }
        var cut = ""
        for character in text {
            guard cut.utf8.count + character.utf8.count <= Self.maximumLineBytes - 40 else { break }
            cut.append(character)
        }
        sink(level, cut + "… (\(text.utf8.count - cut.utf8.count) more bytes)")
    }
    /// Logs at `error`.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// Logs at `warning`.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Logs at `info`.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Logs at `debug`.
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
