/// How to show a host to a person: in Unicode only where that cannot pass
/// for another site, in its ASCII (`xn--`) form otherwise, with the reason.
///
///     HostDisplay("xn--bcher-kva.example").shown  // "bücher.example"
///     HostDisplay("xn--80ak6aa92e.com").shown     // "xn--80ak6aa92e.com"
///     HostDisplay("xn--80ak6aa92e.com").problem   // .lookAlike(.cyrillic)
///     HostDisplay("xn--80ak6aa92e.com").readsAs   // "apple.com"
///
/// The policy is the one browsers publish (Chromium's "IDN in Google Chrome",
/// Firefox's `network.IDN.restriction_profile` "moderate"), decided label by
/// label; docs/chooser.md lists it with its departures. Pure: tested from tables.
public struct HostDisplay: Sendable, Equatable {
    /// The host as DNS has it: ASCII, internationalised labels as `xn--…`.
    public let ascii: String
    /// What to show: each label in Unicode where the policy allows, else as `xn--…`.
    public let shown: String
    /// The Unicode form of every label, whatever the policy says: what the
    /// host would look like, for saying what it is not.
    public let unicode: String
    /// Why some label is shown in ASCII; `nil` when none is.
    public let problem: Problem?
    /// The ASCII host a reader would take this one for (look-alike letters
    /// read as the Latin ones they resemble), when every letter reads as
    /// Latin and some label was shown in ASCII: the site it is not.
    public let readsAs: String?

    /// Why a label is not shown in Unicode.
    public enum Problem: Sendable, Equatable {
        /// Every letter of a label is a look-alike of a Latin letter from
        /// `script`, under a top-level domain not of that script (a "whole-script
        /// confusable"): the host reads as a Latin name, which it is not.
        case lookAlike(Script)
        /// Letters of scripts that are not mixed in real names (Latin with
        /// Cyrillic, Greek or Armenian, or any three), as look-alikes are made.
        case mixedScripts
        /// Characters no real name is shown with: symbols, invisible
        /// joiners, a repeated combining mark, scripts no registry offers.
        case unusualCharacters
    }

    /// Applies the policy to `asciiHost`, a host as `HostName.parse` gives it.
    public init(_ asciiHost: String) {
        ascii = asciiHost
        let labels = asciiHost.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let decoded = labels.map { Self.decode($0) }
        let topLevel = decoded.last(where: { !$0.isEmpty }) ?? []
        var shownLabels: [String] = []
        var found: Problem?
        for (label, scalars) in zip(labels, decoded) {
            guard label.lowercased().hasPrefix("xn--") else { shownLabels.append(label); continue }
            guard !scalars.isEmpty else {
                shownLabels.append(label)
                found = found ?? .unusualCharacters
                continue
            }
            if let problem = Self.problem(with: scalars, topLevel: topLevel) {
                shownLabels.append(label)
                found = found ?? problem
            } else {
                shownLabels.append(Self.string(scalars))
            }
        }
        shown = shownLabels.joined(separator: ".")
        unicode = zip(labels, decoded).map { label, scalars in scalars.isEmpty ? label : Self.string(scalars) }.joined(separator: ".")
        problem = found
        let skeleton = Self.latinSkeleton(of: decoded, labels: labels)
        readsAs = found != nil && skeleton != asciiHost && skeleton.unicodeScalars.allSatisfy { $0.isASCII } ? skeleton : nil
    }

    /// Whether some label is internationalised (whatever is shown).
    public var isInternational: Bool { unicode != ascii }

    // MARK: The policy, one label at a time

    static func problem(with label: [Unicode.Scalar], topLevel: [Unicode.Scalar]) -> Problem? {
        var scripts = Set<Script>()
        var previous: Unicode.Scalar?
        var latinIsASCII = true
        for scalar in label {
            switch Script.classify(scalar) {
            case .unusual: return .unusualCharacters
            case .inherited:
                // A mark on nothing, or the same mark twice (a dot over a dot reads as one).
                guard let previous, previous != scalar else { return .unusualCharacters }
            case .letter(let script):
                scripts.insert(script)
                if script == .latin, !scalar.isASCII { latinIsASCII = false }
            case .common: break
            }
            previous = scalar
        }
        if !allowedMix(scripts, latinIsASCII: latinIsASCII) { return .mixedScripts }
        if scripts.count == 1, let script = scripts.first, let lookAlikes = latinLookAlikes[script],
           label.allSatisfy({ lookAlikes[$0] != nil || Script.classify($0) == .common }),
           label.contains(where: { lookAlikes[$0] != nil }), !Self.topLevel(topLevel, isOf: script) {
            return .lookAlike(script)
        }
        return nil
    }

    /// Chromium's and Firefox's "moderately restrictive" mixing, with
    /// Chromium's narrowing: one script; Latin with the scripts written
    /// together with Han (Japanese, Chinese with Bopomofo, Korean); or ASCII
    /// Latin with one other script that is not Cyrillic, Greek or Armenian,
    /// the scripts whose letters pass for Latin ones.
    static func allowedMix(_ scripts: Set<Script>, latinIsASCII: Bool) -> Bool {
        if scripts.count <= 1 { return true }
        let withHan: [Set<Script>] = [[.latin, .han, .hiragana, .katakana], [.latin, .han, .bopomofo], [.latin, .han, .hangul]]
        if withHan.contains(where: { scripts.isSubset(of: $0) }) { return true }
        guard scripts.count == 2, scripts.contains(.latin), latinIsASCII else { return false }
        return scripts.isDisjoint(with: [.cyrillic, .greek, .armenian])
    }

    /// Whether a top-level domain belongs to `script`'s countries, where a
    /// name in that script is ordinary: written in the script itself, or one
    /// of its countries' ASCII codes.
    static func topLevel(_ topLevel: [Unicode.Scalar], isOf script: Script) -> Bool {
        if topLevel.contains(where: { Script.classify($0) == .letter(script) }) { return true }
        let code = string(topLevel)
        return switch script {
        case .cyrillic: ["bg", "by", "kg", "kz", "mk", "mn", "rs", "ru", "su", "tj", "ua", "uz"].contains(code)
        case .greek: ["gr", "cy"].contains(code)
        case .armenian: code == "am"
        default: false
        }
    }

    /// The letters of each script that are read as Latin ones, and the Latin
    /// letter each is read as (the lowercase letters of UTS #39's
    /// confusables that a person cannot tell apart in an address bar font).
    static let latinLookAlikes: [Script: [Unicode.Scalar: Unicode.Scalar]] = [
        .cyrillic: pairs("аaвbсcԁdеeҽeгrһhіiјjкkӏlпnоoрpԛqѕsԝwѡwхxуyѵvьb"),
        .greek: pairs("αaιiκkνvοoρpτtυuχxωwγyβb"),
        .armenian: pairs("օoսuհhոnցgզqաw"),
    ]

    private static func pairs(_ text: String) -> [Unicode.Scalar: Unicode.Scalar] {
        let scalars = Array(text.unicodeScalars)
        return Dictionary(uniqueKeysWithValues: stride(from: 0, to: scalars.count, by: 2).map { (scalars[$0], scalars[$0 + 1]) })
    }

    /// The host as a reader takes it: look-alike letters read as Latin ones.
    static func latinSkeleton(of decoded: [[Unicode.Scalar]], labels: [String]) -> String {
        zip(labels, decoded).map { label, scalars in
            guard !scalars.isEmpty else { return label }
            return string(scalars.map { scalar in latinLookAlikes.values.lazy.compactMap { $0[scalar] }.first ?? scalar })
        }.joined(separator: ".")
    }

    /// A label's Unicode scalars: `xn--` decoded, others as they are; empty
    /// when an `xn--` label does not decode.
    static func decode(_ label: String) -> [Unicode.Scalar] {
        guard label.lowercased().hasPrefix("xn--") else { return Array(label.unicodeScalars) }
        guard let values = Punycode.decode(label.utf8.dropFirst(4)) else { return [] }
        let scalars = values.compactMap(Unicode.Scalar.init)
        return scalars.count == values.count ? scalars : []
    }

    static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}
