import SafeText

/// An `Exec` value parsed per the Desktop Entry specification, ready to be
/// expanded into an argv. No shell is ever involved: a URL is always exactly
/// one argument, whatever characters it contains.
public struct ExecLine: Sendable, Equatable {
    /// One argument: literal text, or a field code standing alone.
    public enum Part: Sendable, Equatable {
        case literal(String)
        /// `%u`, `%U`, `%f`, `%F`: where the URL goes.
        case target(Character)
        /// `%i`: `--icon` and the Icon key, when there is one.
        case icon
        /// `%c`: the Name key.
        case name
        /// `%k`: the desktop file's location.
        case location
    }

    /// The line's words and field codes, in order.
    public let parts: [Part]

    /// Parses a value that already had the keyfile `string` escapes removed.
    /// - Throws: `ExecLineError` naming what is wrong.
    public init(_ text: String) throws(ExecLineError) {
        let words = try Self.split(text)
        guard let program = words.first else { throw ExecLineError("Exec is empty") }
        let name: String
        switch program {
        case .plain(let text), .quoted(let text): name = text
        }
        guard !name.containsByte(UInt8(ascii: "%")), !name.isEmpty else {
            throw ExecLineError("the program must be a name or path, not a field code")
        }
        if name.containsByte(UInt8(ascii: "=")) {
            throw ExecLineError("the program '\(name)' looks like an environment assignment; Exec does not run a shell")
        }
        var parts: [Part] = [.literal(name)]
        var targets = 0
        for word in words.dropFirst() {
            switch word {
            case .quoted(let text):
                if text.containsByte(UInt8(ascii: "%")) {
                    // The spec forbids field codes in quoted arguments; a
                    // literal percent must be written %%, which is also a field code here.
                    throw ExecLineError("field codes may not appear inside quotes ('\(text)')")
                }
                parts.append(.literal(text))
            case .plain(let text):
                let expanded = try Self.fieldCode(in: text)
                if case .target = expanded { targets += 1 }
                if let expanded { parts.append(expanded) }
            }
        }
        if targets > 1 { throw ExecLineError("Exec has more than one of %f, %F, %u, %U") }
        self.parts = parts
    }

    /// The program, as written (a name to look up on `PATH`, or a path).
    public var program: String {
        guard case .literal(let program) = parts[0] else { return "" }
        return program
    }

    /// Whether the line can receive a URL (`%u` or `%U`).
    public var acceptsURLs: Bool { parts.contains { $0 == .target("u") || $0 == .target("U") } }

    /// The argv for opening `url` with `entry`.
    /// - Throws: when the line cannot receive a URL, so it would be lost.
    /// - Parameters:
    ///   - localPath: for a `file:` URL, its path, which `%f` and `%F` take.
    ///   - options: inserted before the URL (a browser profile's `-P work`),
    ///     and before Flatpak's `@@u` file-forwarding marker when there is one,
    ///     so that they reach the application, not `flatpak run`.
    public func arguments(for url: String, localPath: String? = nil, entry: DesktopEntry, options: [String] = []) throws(ExecLineError) -> [String] {
        let takesFiles = parts.contains(where: { if case .target = $0 { true } else { false } })
        guard acceptsURLs || (takesFiles && localPath != nil) else {
            if takesFiles { throw ExecLineError("the application opens files only (%f or %F), not URLs") }
            throw ExecLineError("Exec has no %u or %U, so the URL could not be passed")
        }
        let target = acceptsURLs ? url : localPath!
        var argv: [String] = []
        var inserted = options.isEmpty
        for part in parts {
            if !inserted, part == .literal("@@u") || part == .literal("@@") || { if case .target = part { true } else { false } }() {
                argv += options
                inserted = true
            }
            switch part {
            case .literal(let text): argv.append(text)
            case .target: argv.append(target)
            case .icon: if let icon = entry.icon, !icon.isEmpty { argv += ["--icon", icon] }
            case .name: argv.append(entry.name)
            case .location: if !entry.path.isEmpty { argv.append(entry.path) }
            }
        }
        return argv
    }

    private enum Word: Equatable {
        case plain(String)
        case quoted(String)
    }

    /// The characters the specification reserves outside quotes.
    private static func isReserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: ">"),
             UInt8(ascii: "<"), UInt8(ascii: "~"), UInt8(ascii: "|"), UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: "$"),
             UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "`"):
            true
        default: false
        }
    }

    /// Splits at unquoted spaces; removes the second-level escapes inside quotes.
    ///
    /// Read byte by byte, as GLib and the shell grammar the specification
    /// borrows do: every character it gives a meaning is ASCII, and the
    /// bytes of any other character are copied whole. (Read by grapheme, a
    /// reserved character followed by a combining mark passed as a literal.)
    /// A plain word is made from its bytes in place, in one piece: every
    /// launch reads its application's line, and byte by byte through an
    /// iterator into a growing array it cost a launch 5 000 instructions.
    private static func split(_ text: String) throws(ExecLineError) -> [Word] {
        var text = text
        return try text.withUTF8 { split($0) }.get()
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<[Word], ExecLineError> {
        let space = UInt8(ascii: " "), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var words: [Word] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == space {
                index += 1
            } else if byte == quote {
                index += 1
                var quoted: [UInt8] = []
                var closed = false
                while index < bytes.count {
                    let next = bytes[index]
                    index += 1
                    if next == quote { closed = true; break }
                    if next == backslash {
                        guard index < bytes.count, bytes[index] == quote || bytes[index] == UInt8(ascii: "`")
                            || bytes[index] == UInt8(ascii: "$") || bytes[index] == backslash
                        else {
                            return .failure(ExecLineError("inside quotes, only \\\", \\`, \\$ and \\\\ are allowed"))
                        }
                        quoted.append(bytes[index])
                        index += 1
                    } else if next == UInt8(ascii: "`") || next == UInt8(ascii: "$") {
                        return .failure(ExecLineError("inside quotes, '\(Character(Unicode.Scalar(next)))' must be escaped"))
                    } else {
                        quoted.append(next)
                    }
                }
                guard closed else { return .failure(ExecLineError("a quote is not closed")) }
                if index < bytes.count, bytes[index] != space {
                    return .failure(ExecLineError("a quoted argument must be followed by a space"))
                }
                words.append(.quoted(String(decoding: quoted, as: UTF8.self)))
            } else {
                let start = index
                while index < bytes.count, bytes[index] != space {
                    let byte = bytes[index]
                    if byte == quote { return .failure(ExecLineError("a quote must start a new argument")) }
                    if isReserved(byte) {
                        return .failure(ExecLineError("'\(byte == UInt8(ascii: "\n") ? "\\n" : String(Character(Unicode.Scalar(byte))))' must be inside quotes"))
                    }
                    index += 1
                }
                words.append(.plain(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)))
            }
        }
        return .success(words)
    }

    /// A field code standing alone, a literal with `%%` undone, or `nil` for a
    /// deprecated field code (removed, as the spec asks).
    private static func fieldCode(in word: String) throws(ExecLineError) -> Part? {
        guard word.containsByte(UInt8(ascii: "%")) else { return .literal(word) }
        if word.count == 2, let code = word.last {
            switch code {
            case "u", "U", "f", "F": return .target(code)
            case "i": return .icon
            case "c": return .name
            case "k": return .location
            case "d", "D", "n", "N", "v", "m": return nil
            case "%": return .literal("%")
            default: break
            }
        }
        // Only %% may appear inside a longer word.
        var literal = ""
        var characters = word.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                literal.append(character)
                continue
            }
            switch characters.next() {
            case "%"?: literal.append("%")
            case let code?: throw ExecLineError("'%\(code)' in '\(word)' is not a field code that may appear inside an argument")
            case nil: throw ExecLineError("'\(word)' ends with a lone '%'")
            }
        }
        return .literal(literal)
    }
}

/// Why an `Exec` line cannot be used.
public struct ExecLineError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    /// A refusal described by `description`.
    public init(_ description: String) { self.description = description }
}
