import OpenURLDaemon
import SafeText
import Synchronization
import Testing

/// A line logged as bytes (the walk's line, `Logger.log(_:utf8:)`) reaches
/// the sink exactly as the same text logged as a string would: escaped, cut
/// to `maximumLineBytes`, and not at all below the threshold.
@Suite struct LoggerTests {
    /// The lines a logger wrote.
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        var written: [String] { lines.withLock { $0 } }
        /// A logger at `threshold` writing to this recorder.
        func logger(_ threshold: Logger.Level = .info) -> Logger {
            Logger(threshold: threshold) { _, bytes in self.lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
        }
    }

    static let texts = [
        "open https://example.com/… from :1.42: handled by handler 1",
        "open https://a.example/… from :1.7 (org.example.App): opened with browser.desktop",
        "evil\u{1B}[2J forged\nline",
        "bidi \u{202E}txt.exe and a soft\u{AD}hyphen",
        "caf\u{E9} 中 😀 …",
        String(repeating: "a", count: Logger.maximumLineBytes),
        String(repeating: "a", count: Logger.maximumLineBytes + 1),
        String(repeating: "é", count: 700),
        String(repeating: "\u{1B}", count: 300),
        "",
    ]

    @Test func bytesAreLoggedAsTheSameTextAsAString() {
        for text in Self.texts {
            let (asString, asBytes) = (Recorder(), Recorder())
            asString.logger().log(.info, text)
            Array(text.utf8).withUnsafeBufferPointer { asBytes.logger().log(.info, utf8: $0) }
            let expected = asString.written
            #expect(asBytes.written == expected, "\(displayable(text.prefix(60)))")
            #expect(expected.count == 1)
            #expect(expected.allSatisfy { $0.utf8.count <= Logger.maximumLineBytes && displayable($0) == $0 })
        }
    }

    @Test func nothingIsWrittenBelowTheThreshold() {
        let recorder = Recorder()
        let logger = recorder.logger(.info)
        Array("a line".utf8).withUnsafeBufferPointer { logger.log(.debug, utf8: $0) }
        logger.debug("a line")
        #expect(recorder.written.isEmpty)
        #expect(logger.writes(.info) && !logger.writes(.debug))
    }
}
