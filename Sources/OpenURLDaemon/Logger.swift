import Glibc
import SafeText

/// Where the daemon's messages go. Library code takes one of these from its
/// caller and never prints on its own.
public struct Logger: Sendable {
    /// syslog priorities; journald reads them from a `<N>` line prefix.
    public enum Level: Int32, Sendable, Comparable {
        case error = 3, warning = 4, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        /// The line's prefix.
        var prefix: StaticString {
            switch self {
            case .error: "<3>"
            case .warning: "<4>"
            case .info: "<6>"
            case .debug: "<7>"
            }
        }
    }

    /// The most detailed level written.
    public let threshold: Level
    private let sink: @Sendable (Level, UnsafeBufferPointer<UInt8>) -> Void

    /// A logger passing every line at or above `threshold`, escaped, to
    /// `sink` as UTF-8 bytes (one line, no newline).
    public init(threshold: Level, sink: @escaping @Sendable (Level, UnsafeBufferPointer<UInt8>) -> Void) {
        self.init(threshold: threshold, batch: nil, sink: sink)
    }

    private init(threshold: Level, batch: LineBatch?, sink: @escaping @Sendable (Level, UnsafeBufferPointer<UInt8>) -> Void) {
        self.threshold = threshold
        self.batch = batch
        self.sink = sink
    }

    /// Where the lines logged `batched` are kept, when they are (`standardError(threshold:batch:)`).
    public let batch: LineBatch?

    /// Writes `<N>message` lines to standard error, one `write` each so that
    /// lines from different threads never interleave. A message is one line:
    /// `log` has escaped every newline in it.
    /// - Parameter batch: where the lines logged `batched` (the line of each
    ///   URL) are kept, to be written together once the daemon's loop is
    ///   idle (`LineBatch`); every other line is written at once, after the
    ///   lines kept before it.
    public static func standardError(threshold: Level, batch: LineBatch? = nil) -> Logger {
        Logger(threshold: threshold, batch: batch) { level, body in
            if let batch {
                batch.add(level.prefix, body, urgent: true)
            } else {
                LineBatch.write(level.prefix, body, to: 2)
            }
        }
    }

    /// Discards everything.
    public static let silent = Logger(threshold: .error) { _, _ in }

    /// A line is cut at this many bytes of escaped text, so that no peer
    /// (a long host, a handler's long error) can flood the journal.
    public static let maximumLineBytes = 1000

    /// Whether lines at `level` are written: a caller that would build one
    /// at some cost asks first.
    public func writes(_ level: Level) -> Bool { level <= threshold }

    /// Logs `message` at `level` with control, bidirectional and invisible
    /// characters escaped (`SafeText.displayable`), since log lines carry
    /// peers' text, and cut to `maximumLineBytes`.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard writes(level) else { return }
        var text = displayable(message())
        if text.utf8.count > Self.maximumLineBytes { text = Self.cut(text) }
        text.withUTF8 { sink(level, $0) }
    }

    /// Logs the text whose UTF-8 is `line` at `level`, as `log(_:_:)`
    /// does; written as it is, with no string made, when it needs no
    /// escape and no cut.
    /// - Parameters:
    ///   - line: well-formed UTF-8, such as bytes copied from strings.
    ///   - batched: the line may be kept briefly and written with others
    ///     (the line of each URL: see `LineBatch`), when this logger keeps any.
    public func log(_ level: Level, utf8 line: UnsafeBufferPointer<UInt8>, batched: Bool = false) {
        guard writes(level) else { return }
        guard line.count <= Self.maximumLineBytes, isDisplayableAsIs(line) else {
            return log(level, String(decoding: line, as: UTF8.self))
        }
        if batched, let batch {
            batch.add(level.prefix, line, urgent: false)
        } else {
            sink(level, line)
        }
    }

    /// `text` cut to `maximumLineBytes`, at a character, saying how much was left out.
    private static func cut(_ text: String) -> String {
        var cut = ""
        for character in text {
            guard cut.utf8.count + character.utf8.count <= maximumLineBytes - 40 else { break }
            cut.append(character)
        }
        return cut + "… (\(text.utf8.count - cut.utf8.count) more bytes)"
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
