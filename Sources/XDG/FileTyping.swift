/// A file's MIME type and what decided it, by the Shared MIME-info
/// Database specification's recommended order ("Recommended checking
/// order"): the name when its globs agree; the contents (`mime/magic`) when
/// no glob matches or the best globs disagree; then the text/binary check.
///
/// Pure: the caller reads the contents, and only when asked to.
public struct FileTyping: Sendable, Equatable {
    /// The type, aliases resolved.
    public let type: String
    /// What decided it.
    public let reason: Reason
    /// What the contents say, when they were read: the type of the first
    /// matching contents rule, else `text/plain` or `application/octet-stream`.
    public let contentsType: String?

    /// What decided a file's type.
    public enum Reason: Sendable, Equatable {
        /// The name: one glob, or several that agree.
        case glob(String)
        /// The contents: this rule's type and priority; no glob matched.
        case magic(priority: Int)
        /// The name's globs disagreed; the contents chose this glob's type
        /// (the contents' type, or one of its subclasses).
        case globChosenByContents(String)
        /// The name's globs disagreed and the contents did not choose: the first glob.
        case firstOfConflictingGlobs(String)
        /// No glob and no contents rule: the first bytes are text.
        case text
        /// No glob and no contents rule: the first bytes are not text, or could not be read.
        case binary
    }

    /// - Parameters:
    ///   - name: the file's name (its last path component).
    ///   - contents: reads the file's first `extent` bytes; `nil` when they
    ///     cannot be read (not a regular file, no permission).
    public init(name: String, globs: MimeGlobs, magic: MimeMagic, contents: (_ extent: Int) -> [UInt8]?) {
        let matches = globs.bestMatches(ofFileNamed: name)
        let types = matches.map { globs.canonical($0.type) }
        if let first = matches.first, Set(types).count == 1 {
            (type, reason, contentsType) = (types[0], .glob(first.pattern), nil)
            return
        }
        // The text check looks at 128 bytes even where the rules need fewer (or none).
        let data = contents(max(magic.extent, MimeMagic.textCheckLength))
        let section = data.flatMap { magic.match($0) }
        let sniffed = section.map { globs.canonical($0.type) }
            ?? (data.map(MimeMagic.looksLikeText) == true ? "text/plain" : "application/octet-stream")
        contentsType = data == nil ? nil : sniffed
        guard !matches.isEmpty else {
            if let section {
                (type, reason) = (sniffed, .magic(priority: section.priority))
            } else {
                (type, reason) = (sniffed, sniffed == "text/plain" ? .text : .binary)
            }
            return
        }
        // A glob whose type is the contents' type, or a subclass of it ("foo.doc"
        // that is an OLE file), wins; else the first of the best globs.
        if data != nil, let chosen = matches.first(where: { globs.lineage(of: $0.type).contains(sniffed) }) {
            (type, reason) = (globs.canonical(chosen.type), .globChosenByContents(chosen.pattern))
        } else {
            (type, reason) = (types[0], .firstOfConflictingGlobs(matches[0].pattern))
        }
    }

    /// What decided, in words, for `openurl default PATH`.
    public var explanation: String {
        switch reason {
        case .glob(let pattern): "the name matches \(pattern)"
        case .magic(let priority): "no glob matches the name; the contents match \(type)'s rules (priority \(priority))"
        case .globChosenByContents(let pattern):
            "the name's best globs disagree; the contents (\(contentsType ?? "unread")) choose \(pattern)"
        case .firstOfConflictingGlobs(let pattern):
            "the name's best globs disagree and the contents (\(contentsType ?? "unreadable")) do not choose; \(pattern) comes first"
        case .text: "no glob matches the name and no contents rule matches; the first bytes are text"
        case .binary: "no glob matches the name and no contents rule matches; the first bytes are not text (or cannot be read)"
        }
    }
}
