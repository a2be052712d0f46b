import Routing
import XDG

/// The answers the person asked the chooser to remember: ordinary rules in
/// their own file, `remembered.rules` in the user's rule directory, one
/// `[Rule remembered HOST]` group each, so they load, list and explain like
/// any rule and can be edited by hand. This type edits the file's text.
public enum RememberedChoices {
    /// The file's name in `$XDG_CONFIG_HOME/openurld/rules.d`.
    public static let fileName = "remembered" + RuleFiles.suffix
    /// The rule-name prefix of remembered choices.
    public static let namePrefix = "remembered "

    static let header = """
        # Choices remembered from the openurld chooser, one rule each.
        # openurld writes this file when you tick "Remember"; you may edit it.
        # `openurl remembered` lists these rules, `openurl forget HOST` removes one.

        """

    /// One remembered answer: open URLs of `schemes` on `host` (and, with
    /// `includesSubdomains`, every host below it) with `target`.
    public struct Entry: Sendable, Equatable {
        /// The host, or with `includesSubdomains` the domain, it is remembered for.
        public let host: String
        /// Whether every host below `host` is included.
        public let includesSubdomains: Bool
        /// The schemes it covers.
        public let schemes: [String]
        /// Where such URLs open.
        public let target: Target
        /// The rule's priority: just inside the rule that asked.
        public let priority: Int32

        /// An entry from its parts.
        public init(host: String, includesSubdomains: Bool, schemes: [String], target: Target, priority: Int32) {
            self.host = host
            self.includesSubdomains = includesSubdomains
            self.schemes = schemes
            self.target = target
            self.priority = priority
        }

        /// The schemes a choice made for a URL of `scheme` covers: the web's two together.
        public static func schemes(for scheme: String) -> [String] {
            scheme == "http" || scheme == "https" ? ["http", "https"] : [scheme]
        }

        /// The rule's name: `remembered example.com`, or `remembered *.example.com`.
        public var ruleName: String { namePrefix + (includesSubdomains ? "*." : "") + host }

        /// The entry as a rule file group (`[Rule remembered HOST]`).
        public var text: String {
            let hosts = includesSubdomains ? [host, "*." + host] : [host]
            return """
                [Rule \(ruleName)]
                Schemes=\(KeyFile.listValue(schemes))
                Hosts=\(KeyFile.listValue(hosts))
                Open=\(KeyFile.stringValue(target.description))
                Priority=\(priority)

                """
        }
    }

    /// The file's text with `entry` added, replacing a remembered rule of the same name.
    public static func adding(_ entry: Entry, to text: String?) -> String {
        var result = removing(named: [entry.ruleName], from: text ?? header).text
        if !result.isEmpty && !result.hasSuffix("\n") { result += "\n" }
        if !result.isEmpty && !result.hasSuffix("\n\n") { result += "\n" }
        return result + entry.text
    }

    /// The file's text without the remembered rules for `host` (exactly
    /// that host, and the rule for it and its subdomains), and the names removed.
    public static func forgetting(_ host: String, in text: String) -> (text: String, removed: [String]) {
        removing(named: [namePrefix + host, namePrefix + "*." + host], from: text)
    }

    /// Removes the groups `[Rule NAME]` for each name, with the lines up to the next group.
    static func removing(named names: [String], from text: String) -> (text: String, removed: [String]) {
        var kept: [Substring] = []
        var removed: [String] = []
        var skipping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                let name = trimmed.hasPrefix("[Rule ") && trimmed.hasSuffix("]") ? String(trimmed.dropFirst(6).dropLast()) : nil
                skipping = name.map(names.contains) ?? false
                if skipping, let name { removed.append(name) }
            }
            if !skipping { kept.append(line) }
        }
        return (kept.joined(separator: "\n"), removed)
    }
}
