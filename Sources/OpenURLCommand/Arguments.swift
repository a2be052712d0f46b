import XDG
import DispatcherAPI
import Routing

/// What the command line asks `openurl` to do.
public enum Command: Equatable, Sendable {
    case open(urls: [String], verbose: Bool, ask: Bool, quiet: Bool)
    case remembered(json: Bool)
    case forget(hosts: [String])
    case explain(url: String, json: Bool)
    case handlers(json: Bool)
    case rules(json: Bool)
    case checkRules(files: [String])
    case detect(DetectOptions)
    case handle(HandleOptions)
    case showDefault(schemes: [String])
    case targets(scheme: String, json: Bool)
    /// `types`: MIME types, `x-scheme-handler/SCHEME` for schemes.
    case setDefault(types: [String], fallback: String?)
    case unsetDefault(types: [String])
    case status(json: Bool)
    case help(topic: String?)
    case version
}

/// `openurl handle`'s options: what the handler matches, and the command.
public struct HandleOptions: Equatable, Sendable {
    /// The spec registered (its name defaults to the command line).
    public var match = DispatcherAPI.HandlerMatch(schemes: [])
    public var command: [String] = []
}

/// `openurl detect`'s options.
public struct DetectOptions: Equatable, Sendable {
    public var text: String?
    public var json = false
    public var open = false
    public var kinds: [String] = []
}

/// A command-line mistake; `openurl` prints it and exits with status 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public let topic: String?
    init(_ description: String, topic: String? = nil) {
        self.description = description
        self.topic = topic
    }
}

extension Command {
    static let subcommands = ["explain", "handlers", "rules", "check-rules", "detect", "handle", "default", "set-default", "unset-default", "targets", "remembered", "forget", "status", "help"]
    static let defaultSchemes = ["http", "https"]
    /// What a desktop sets for its default web browser: GNOME Settings'
    /// "Web" row (x-scheme-handler/http plus text/html, application/xhtml+xml
    /// and x-scheme-handler/https) and xdg-settings (about: and unknown: too).
    static let browserTypes = [
        "x-scheme-handler/http", "x-scheme-handler/https", "x-scheme-handler/about", "x-scheme-handler/unknown",
        "text/html", "application/xhtml+xml",
    ]

    /// Parses `arguments` (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { throw UsageError("no URL given") }
        switch first {
        case "-h", "--help": return .help(topic: nil)
        case "--version": return .version
        default: break
        }
        guard subcommands.contains(first) else {
            if looksLikeACommand(first) {
                let hint = closestSubcommand(to: first).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError("unknown command '\(first)'\(hint); to open a file of that name, write './\(first)'")
            }
            return try parseOpen(arguments)
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h"), first != "handle" || !rest.contains("--") {
            return .help(topic: first)
        }
        switch first {
        case "help": return .help(topic: rest.first)
        case "explain":
            let (flags, positional) = split(rest)
            try check(flags, allowed: ["--json"], topic: first)
            guard positional.count == 1 else { throw UsageError("explain takes exactly one URL", topic: first) }
            return .explain(url: positional[0], json: flags.contains("--json"))
        case "handlers":
            return .handlers(json: try onlyJSONFlag(rest, topic: first))
        case "rules":
            return .rules(json: try onlyJSONFlag(rest, topic: first))
        case "check-rules":
            let (flags, positional) = split(rest)
            try check(flags, allowed: [], topic: first)
            return .checkRules(files: positional)
        case "detect":
            return .detect(try parseDetect(rest))
        case "targets":
            let (flags, positional) = split(rest)
            try check(flags, allowed: ["--json"], topic: first)
            guard positional.count <= 1 else { throw UsageError("targets takes at most one scheme", topic: first) }
            let scheme = positional.first?.lowercased() ?? "https"
            guard isValidScheme(scheme) else { throw UsageError("'\(scheme)' is not a valid scheme", topic: first) }
            return .targets(scheme: scheme, json: flags.contains("--json"))
        case "remembered":
            return .remembered(json: try onlyJSONFlag(rest, topic: first))
        case "forget":
            let (flags, positional) = split(rest)
            try check(flags, allowed: [], topic: first)
            guard !positional.isEmpty else { throw UsageError("forget needs a host, e.g. openurl forget example.com", topic: first) }
            return .forget(hosts: positional)
        case "status":
            return .status(json: try onlyJSONFlag(rest, topic: first))
        case "default", "set-default", "unset-default":
            let (flags, positional) = split(rest)
            let fallbacks = flags.filter { $0.hasPrefix("--fallback=") }.map { String($0.dropFirst("--fallback=".count)) }
            try check(flags.filter { !$0.hasPrefix("--fallback=") || first != "set-default" },
                      allowed: first == "default" ? [] : ["--browser"], topic: first)
            guard fallbacks.count <= 1 else { throw UsageError("--fallback is given more than once", topic: first) }
            if let fallback = fallbacks.first, !PreviousDefaults.isDesktopFileID(fallback) {
                throw UsageError("--fallback takes a desktop-file ID such as firefox.desktop, not '\(fallback)'", topic: first)
            }
            let browser = flags.contains("--browser")
            var schemes = positional.isEmpty && !browser ? defaultSchemes : positional.map { $0.lowercased() }
            for scheme in schemes where !isValidScheme(scheme) {
                throw UsageError("'\(scheme)' is not a valid scheme", topic: first)
            }
            guard first != "default" else { return .showDefault(schemes: schemes) }
            // KIO sends http: URLs to the https default: the two are set, and unset, together.
            if schemes.contains(where: defaultSchemes.contains) {
                schemes = schemes.filter { !defaultSchemes.contains($0) } + defaultSchemes
            }
            var types = browser ? browserTypes : []
            for type in schemes.map({ "x-scheme-handler/" + $0 }) where !types.contains(type) { types.append(type) }
            return first == "set-default" ? .setDefault(types: types, fallback: fallbacks.first) : .unsetDefault(types: types)
        default:
            return .handle(try parseHandle(rest))
        }
    }

    /// A first argument spelled like a subcommand (lower-case letters and
    /// dashes: no scheme, no path) is read as a mistyped one, never opened.
    static func looksLikeACommand(_ argument: String) -> Bool {
        guard let head = argument.utf8.first, head >= UInt8(ascii: "a"), head <= UInt8(ascii: "z") else { return false }
        return argument.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-") }
    }

    /// The subcommand at most two edits away from `word`, for "did you mean".
    static func closestSubcommand(to word: String) -> String? {
        let ranked = subcommands.map { (command: $0, distance: editDistance(Array(word.utf8), Array($0.utf8))) }
            .filter { $0.distance <= 2 }
            .min { $0.distance < $1.distance }
        return ranked?.command
    }

    /// Levenshtein distance, counting a swap of two neighbours as one edit.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    private static func parseOpen(_ arguments: [String]) throws(UsageError) -> Command {
        var verbose = false
        var ask = false
        var quiet = false
        var urls: [String] = []
        var onlyURLs = false
        for argument in arguments {
            if !onlyURLs, argument == "--" { onlyURLs = true; continue }
            if !onlyURLs, argument == "-v" || argument == "--verbose" { verbose = true; continue }
            if !onlyURLs, argument == "--ask" { ask = true; continue }
            if !onlyURLs, argument == "-q" || argument == "--quiet" { quiet = true; continue }
            if !onlyURLs, argument.hasPrefix("-") {
                throw UsageError("unknown option '\(argument)' (to open a URL starting with '-', put '--' before it)")
            }
            urls.append(argument)
        }
        guard !urls.isEmpty else { throw UsageError("no URL given") }
        return .open(urls: urls, verbose: verbose, ask: ask, quiet: quiet)
    }

    private static func parseHandle(_ arguments: [String]) throws(UsageError) -> HandleOptions {
        var options = HandleOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                options.command = Array(rest)
                break
            }
            let (name, inline) = argument.hasPrefix("--") && argument.contains("=")
                ? (String(argument.prefix { $0 != "=" }), String(argument.drop { $0 != "=" }.dropFirst())) : (argument, nil)
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = rest.popFirst() else { throw UsageError("\(name) needs a value", topic: "handle") }
                return next
            }
            switch name {
            case "--scheme": options.match.schemes.append(try value().lowercased())
            case "--host": options.match.hosts.append(try value())
            case "--path": options.match.paths.append(try value())
            case "--name": options.match.name = try value()
            case "--priority":
                let text = try value()
                guard let priority = Int32(text) else { throw UsageError("--priority takes a whole number, not '\(text)'", topic: "handle") }
                options.match.priority = priority
            case "--scope":
                let scope = try value()
                guard let parsed = DispatcherAPI.HandlerMatch.Scope(rawValue: scope) else {
                    throw UsageError("--scope is 'session' or 'caller', not '\(scope)'", topic: "handle")
                }
                options.match.scope = parsed
            default:
                throw UsageError("unknown option '\(argument)'", topic: "handle")
            }
        }
        if options.match.schemes.isEmpty { options.match.schemes = defaultSchemes }
        guard !options.command.isEmpty else { throw UsageError("handle needs '-- COMMAND [ARG...]'", topic: "handle") }
        return options
    }

    static let linkKinds = ["web", "email", "phone", "other"]

    private static func parseDetect(_ arguments: [String]) throws(UsageError) -> DetectOptions {
        var options = DetectOptions()
        var words: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                words += rest
                break
            }
            switch argument {
            case "--json": options.json = true
            case "--open": options.open = true
            case "--kinds":
                guard let value = rest.popFirst() else { throw UsageError("--kinds needs a value", topic: "detect") }
                options.kinds += value.split(separator: ",").map(String.init)
            case let flag where flag.hasPrefix("--kinds="):
                options.kinds += flag.dropFirst(8).split(separator: ",").map(String.init)
            case let flag where flag.hasPrefix("-") && flag != "-":
                throw UsageError("unknown option '\(flag)'", topic: "detect")
            default:
                words.append(argument)
            }
        }
        if let unknown = options.kinds.first(where: { !linkKinds.contains($0) }) {
            throw UsageError("unknown kind '\(unknown)' (kinds: \(linkKinds.joined(separator: ", ")))", topic: "detect")
        }
        if options.json && options.open { throw UsageError("--json and --open cannot be combined", topic: "detect") }
        options.text = words.isEmpty || words == ["-"] ? nil : words.joined(separator: " ")
        return options
    }

    private static func split(_ arguments: [String]) -> (flags: [String], positional: [String]) {
        (arguments.filter { $0.hasPrefix("-") && $0 != "-" }, arguments.filter { !$0.hasPrefix("-") || $0 == "-" })
    }

    /// For commands that take no arguments but `--json`: whether it was given.
    private static func onlyJSONFlag(_ arguments: [String], topic: String) throws(UsageError) -> Bool {
        let (flags, positional) = split(arguments)
        try check(flags, allowed: ["--json"], topic: topic)
        guard positional.isEmpty else { throw UsageError("\(topic) takes no arguments", topic: topic) }
        return flags.contains("--json")
    }

    private static func check(_ flags: [String], allowed: Set<String>, topic: String) throws(UsageError) {
        if let unknown = flags.first(where: { !allowed.contains($0) }) {
            throw UsageError("unknown option '\(unknown)'", topic: topic)
        }
    }

}
