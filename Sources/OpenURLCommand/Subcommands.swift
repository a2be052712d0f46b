import CommandLineOptions
import Glibc
import LinkDetection
import DispatcherAPI
import Routing
import XDG

// The table of `openurl`'s commands. Adding one is one entry here and its runner.
extension Subcommand {
    /// Opening URLs and files: what `openurl` does when the first word is no command's name.
    static let open = Subcommand(
        "open", "URL|PATH...", "open each URL or file (the default command)",
        options: OpenCommandLine.options, page: Help.main
    ) { invocation throws(UsageError) in
        let arguments = invocation.arguments
        if arguments.has(Option.help) {
            Console.out(Help.text(of: Help.main))
            return .finished(ExitStatus.accepted.rawValue)
        }
        if arguments.has(Option.version) {
            Console.out("openurl \(DispatcherAPI.version)\n")
            return .finished(ExitStatus.accepted.rawValue)
        }
        guard !invocation.operands.isEmpty else { throw OpenCommandLine.noURLGiven }
        let opener = OpenCommand(
            environment: invocation.environment, verbose: invocation.has(OpenCommandLine.verbose),
            ask: invocation.has(OpenCommandLine.ask), quiet: invocation.has(OpenCommandLine.quiet))
        guard let urls = opener.validated(invocation.operands) else { return .finished(ExitStatus.usage.rawValue) }
        let throughDaemon = opener.openThroughDaemon(urls)
        guard !throughDaemon.unopened.isEmpty else { return .finished(throughDaemon.status.rawValue) }
        return .continueAsync {
            await opener.openDirectly(throughDaemon.unopened, worst: throughDaemon.status, because: throughDaemon.reason).rawValue
        }
    }

    /// Every named command, in the order `openurl --help` lists them.
    static let all: [Subcommand] = [
        Subcommand(
            "explain", "explain URL",
            "show which handlers and rules would be asked, what the rules would do, and where the URL would end up",
            options: [Flags.explainJSON], page: Help.explain
        ) { invocation throws(UsageError) in
            guard invocation.operands.count == 1 else { throw invocation.mistake("explain takes exactly one URL") }
            let (url, json) = (invocation.operands[0], invocation.has(Flags.explainJSON))
            return .continueAsync { await InspectCommands(environment: invocation.environment).explain(url, json: json).rawValue }
        },
        Subcommand("handlers", "handlers", "list the registered handlers", options: [Flags.handlersJSON], page: Help.handlers) {
            invocation throws(UsageError) in
            let json = try onlyOptions(invocation, Flags.handlersJSON)
            return .continueAsync { await InspectCommands(environment: invocation.environment).handlers(json: json).rawValue }
        },
        Subcommand("rules", "rules", "list the loaded rules, with their file and line", options: [Flags.rulesJSON], page: Help.rules) {
            invocation throws(UsageError) in
            let json = try onlyOptions(invocation, Flags.rulesJSON)
            return .continueAsync { await RuleCommands(environment: invocation.environment).list(json: json).rawValue }
        },
        Subcommand("check-rules", "check-rules [FILE...]", "check rule files for mistakes", page: Help.checkRules) { invocation in
            .finished(RuleCommands(environment: invocation.environment).check(invocation.operands).rawValue)
        },
        Subcommand(
            "detect", "detect [TEXT]", "print (or --open) the links TEXT or standard input mentions",
            options: [Flags.detectJSON, Flags.detectOpen, Flags.kinds, Flags.region], page: Help.detect
        ) { invocation throws(UsageError) in
            var options = DetectOptions()
            options.json = invocation.has(Flags.detectJSON)
            options.open = invocation.has(Flags.detectOpen)
            options.kinds = invocation.arguments.values(of: Flags.kinds).flatMap { $0.split(separator: ",").map(String.init) }
            let known = DetectedLink.Kind.allCases.map(\.rawValue)
            if let unknown = options.kinds.first(where: { !known.contains($0) }) {
                throw invocation.mistake("unknown kind '\(unknown)' (kinds: \(known.joined(separator: ", ")))")
            }
            if options.json && options.open { throw invocation.mistake("--json and --open cannot be combined") }
            if let code = invocation.arguments.values(of: Flags.region).last {
                guard let region = PhoneRegion(code) else {
                    throw invocation.mistake("unknown region '\(code)' (an ISO 3166 code with a numbering plan, such as FR, DE or US)")
                }
                options.region = region
            } else {
                options.region = PhoneRegion.ofLocale(in: invocation.environment)
            }
            let words = invocation.operands
            options.text = words.isEmpty || words == ["-"] ? nil : words.joined(separator: " ")
            return .continueAsync { [options] in await DetectCommand(environment: invocation.environment, options: options).run().rawValue }
        },
        Subcommand(
            "handle", "handle ... -- CMD", "run CMD for each URL, as a handler, while openurl runs",
            options: [Flags.scheme, Flags.host, Flags.path, Flags.priority, Flags.scope, Flags.name], words: .commandAfterDashes,
            page: Help.handle
        ) { invocation throws(UsageError) in
            guard invocation.operands.isEmpty else { throw invocation.mistake("unknown argument '\(invocation.operands[0])'") }
            var options = HandleOptions()
            let given = invocation.arguments
            options.match.schemes = given.values(of: Flags.scheme).map { $0.lowercased() }
            options.match.hosts = given.values(of: Flags.host)
            options.match.paths = given.values(of: Flags.path)
            options.match.name = try given.value(of: Flags.name, topic: invocation.topic) ?? ""
            if let text = try given.value(of: Flags.priority, topic: invocation.topic) {
                guard let priority = Int32(text) else { throw invocation.mistake("--priority takes a whole number, not '\(text)'") }
                options.match.priority = priority
            }
            if let scope = try given.value(of: Flags.scope, topic: invocation.topic) {
                guard let parsed = DispatcherAPI.HandlerMatch.Scope(rawValue: scope) else {
                    throw invocation.mistake("--scope is 'session' or 'caller', not '\(scope)'")
                }
                options.match.scope = parsed
            }
            if options.match.schemes.isEmpty { options.match.schemes = Defaults.webSchemes }
            options.command = given.command ?? []
            guard !options.command.isEmpty else { throw invocation.mistake("handle needs '-- COMMAND [ARG...]'") }
            return .continueAsync { [options] in await HandleCommand(environment: invocation.environment, options: options).run().rawValue }
        },
        Subcommand(
            "default", "default [SCHEME|TYPE|PATH...]", "show the application the fallback would use for a scheme, a MIME type or a file, and why",
            page: Help.defaults
        ) { invocation throws(UsageError) in
            let subjects = try Defaults.subjects(invocation)
            return .finished(DefaultsCommands(environment: invocation.environment).show(subjects).rawValue)
        },
        Subcommand(
            "set-default", "set-default [--browser] [SCHEME...]",
            "make openurld the default for the schemes (http and https when none are given), or the default web browser",
            options: [Flags.browser, Flags.fallback], page: Help.defaults
        ) { invocation throws(UsageError) in
            let fallback = try invocation.arguments.value(of: Flags.fallback, topic: invocation.topic)
            if let fallback, !PreviousDefaults.isDesktopFileID(fallback) {
                throw invocation.mistake("--fallback takes a desktop-file ID such as firefox.desktop, not '\(fallback)'")
            }
            let types = try Defaults.types(invocation)
            return .finished(DefaultsCommands(environment: invocation.environment).set(types, makeDefault: true, fallback: fallback).rawValue)
        },
        Subcommand("unset-default", "unset-default [--browser] [SCHEME...]", "undo set-default", options: [Flags.browser], page: Help.defaults) {
            invocation throws(UsageError) in
            let types = try Defaults.types(invocation)
            return .finished(DefaultsCommands(environment: invocation.environment).set(types, makeDefault: false, fallback: nil).rawValue)
        },
        Subcommand(
            "targets", "targets [SCHEME]",
            "list where SCHEME's URLs can go: applications, their actions and browser profiles, as rules' Open= writes them",
            options: [Flags.targetsJSON], page: Help.targets
        ) { invocation throws(UsageError) in
            guard invocation.operands.count <= 1 else { throw invocation.mistake("targets takes at most one scheme") }
            let scheme = invocation.operands.first?.lowercased() ?? "https"
            guard isValidScheme(scheme) else { throw invocation.mistake("'\(scheme)' is not a valid scheme") }
            let json = invocation.has(Flags.targetsJSON)
            return .finished(DefaultsCommands(environment: invocation.environment).targets(scheme, json: json).rawValue)
        },
        Subcommand("remembered", "remembered", "list the chooser's remembered choices", options: [Flags.rememberedJSON], page: Help.remembered) {
            invocation throws(UsageError) in
            let json = try onlyOptions(invocation, Flags.rememberedJSON)
            return .finished(RememberedCommands(environment: invocation.environment).list(json: json).rawValue)
        },
        Subcommand("forget", "forget HOST...", "remove the remembered choices for HOST", page: Help.remembered) { invocation throws(UsageError) in
            guard !invocation.operands.isEmpty else { throw invocation.mistake("forget needs a host, e.g. openurl forget example.com") }
            return .finished(RememberedCommands(environment: invocation.environment).forget(invocation.operands).rawValue)
        },
        Subcommand("status", "status", "show whether openurld is running", options: [Flags.statusJSON], page: Help.status) {
            invocation throws(UsageError) in
            let json = try onlyOptions(invocation, Flags.statusJSON)
            return .continueAsync { await InspectCommands(environment: invocation.environment).status(json: json).rawValue }
        },
        help,
    ]

    /// `help [COMMAND]`, also what `--help` runs.
    static let help = Subcommand("help", "help [COMMAND]", "print this help, or a command's", page: Help.main) { invocation in
        let topic = invocation.operands.first
        guard let text = Help.text(for: topic) else {
            Console.error("no help for '\(topic ?? "")'; commands: \(all.map(\.name).joined(separator: ", "))")
            return .finished(ExitStatus.usage.rawValue)
        }
        Console.out(text)
        return .finished(ExitStatus.accepted.rawValue)
    }

    /// For commands that take no words but their flags: whether `flag` was given.
    private static func onlyOptions(_ invocation: Invocation, _ flag: Option) throws(UsageError) -> Bool {
        guard invocation.operands.isEmpty else { throw invocation.mistake("\(invocation.topic) takes no arguments") }
        return invocation.has(flag)
    }
}

/// The options of `openurl`'s commands (the plain open's are `OpenCommandLine`'s).
enum Flags {
    static let explainJSON = Option(
        "--json", help: "print one JSON object: {\"url\", \"handlers\": [...], \"application\"}; each step has \"kind\" (handler or rule), the fields 'openurl handlers --json' or 'openurl rules --json' gives for it, and \"url\", \"result\" and, for a rewrite, \"result-url\"")
    static let handlersJSON = Option("--json", help: "print a JSON array of objects")
    static let rulesJSON = Option("--json", help: "print {\"rules\": [...], \"problems\": [...]}")
    static let targetsJSON = Option("--json", help: "print an array of {\"target\", \"name\", \"kind\"} objects")
    static let rememberedJSON = Option("--json", help: "print an array of {\"host\", \"schemes\", \"target\"} objects")
    static let statusJSON = Option("--json", help: "print {\"running\", \"version\", \"owner\", \"handlers\"}")

    static let detectJSON = Option(
        "--json", help: "print a JSON array of {\"offset\", \"length\", \"kind\", \"url\"}; offset and length count UTF-8 bytes of the input")
    static let detectOpen = Option("--open", help: "open every link found through openurld, like 'openurl URL...'")
    static let kinds = Option(
        "--kinds", value: "KINDS", help: "report only these kinds, comma-separated: web, email, phone, other (other: URLs with any other scheme)")
    static let region = Option(
        "--region", value: "CC", help: "read national phone numbers as region CC's (ISO 3166: FR, DE, US); default: the locale's (LC_ALL, LC_TELEPHONE, LANG)")

    static let scheme = Option("--scheme", value: "S", help: "a scheme to match (repeatable; default: http and https; '*' for all)")
    static let host = Option("--host", value: "H", help: "a host, or *.domain for its subdomains (repeatable; default: any)")
    static let path = Option("--path", value: "P", help: "a path glob: * within a segment, ** across (repeatable; default: any)")
    static let priority = Option("--priority", value: "N", help: "higher is asked first (default 0)")
    static let scope = Option(
        "--scope", value: "S", help: "session: asked for everyone's URLs (default);\ncaller: only for URLs this process opens")
    static let name = Option("--name", value: "NAME", help: "shown by 'openurl handlers' and in the log")

    static let browser = Option(
        "--browser", help: "set (or unset) what desktops set for the default web browser, not only the schemes")
    static let fallback = Option(
        "--fallback", value: "ID", help: "with set-default: record ID (an installed desktop-file ID) as the application behind openurld")
}

/// How `default`, `set-default` and `unset-default` read their words.
enum Defaults {
    static let webSchemes = ["http", "https"]
    /// What a desktop sets for its default web browser: GNOME Settings'
    /// "Web" row (x-scheme-handler/http plus text/html, application/xhtml+xml
    /// and x-scheme-handler/https) and xdg-settings (about: and unknown: too).
    static let browserTypes = [
        "x-scheme-handler/http", "x-scheme-handler/https", "x-scheme-handler/about", "x-scheme-handler/unknown",
        "text/html", "application/xhtml+xml",
    ]

    /// The schemes named, http and https when none are (none with `--browser`).
    static func schemes(_ invocation: Subcommand.Invocation) throws(UsageError) -> [String] {
        let browser = invocation.has(Flags.browser)
        let schemes = invocation.operands.isEmpty && !browser ? webSchemes : invocation.operands.map { $0.lowercased() }
        for scheme in schemes where !isValidScheme(scheme) { throw invocation.mistake("'\(scheme)' is not a valid scheme") }
        return schemes
    }

    /// What `default` is asked about: a path (absolute, `./`, `../`, `~`, or
    /// an existing file) is a file; `TYPE/SUBTYPE` is a MIME type; anything
    /// else a scheme. Without words: http and https.
    static func subjects(_ invocation: Subcommand.Invocation) throws(UsageError) -> [DefaultsCommands.Subject] {
        guard !invocation.operands.isEmpty else { return webSchemes.map(DefaultsCommands.Subject.scheme) }
        return try invocation.operands.map { word throws(UsageError) -> DefaultsCommands.Subject in
            if FileURL.isPath(word, exists: { access($0, F_OK) == 0 }) {
                do throws(RoutingError) { return .file(word, try OpenCommand.url(from: word)) } catch {
                    throw invocation.mistake("'\(word)': \(error.message)")
                }
            }
            if isMIMEType(word) { return .type(word.lowercased()) }
            guard isValidScheme(word) else { throw invocation.mistake("'\(word)' is not a valid scheme, MIME type or path") }
            return .scheme(word.lowercased())
        }
    }

    /// `type/subtype` as RFC 6838 allows their names.
    static func isMIMEType(_ word: String) -> Bool {
        let parts = word.split(separator: "/", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&^_.+-")
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.count <= 127 && $0.allSatisfy(allowed.contains) && ($0.first!.isLetter || $0.first!.isNumber) }
    }

    /// The MIME types `set-default` and `unset-default` change.
    static func types(_ invocation: Subcommand.Invocation) throws(UsageError) -> [String] {
        var schemes = try schemes(invocation)
        // KIO sends http: URLs to the https default: the two are set, and unset, together.
        if schemes.contains(where: webSchemes.contains) { schemes = schemes.filter { !webSchemes.contains($0) } + webSchemes }
        var types = invocation.has(Flags.browser) ? browserTypes : []
        for type in schemes.map({ "x-scheme-handler/" + $0 }) where !types.contains(type) { types.append(type) }
        return types
    }
}
