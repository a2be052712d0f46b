import HostNames

/// A run of domain labels found in the text.
struct DomainName {
    let range: Range<Int>
    /// The range of each label.
    let labels: [Range<Int>]
}

extension TextScan {
    /// The labels starting at `start` (letters, digits and inner hyphens,
    /// separated by single dots), without a final dot; `nil` unless there
    /// are two labels or more and the last is an IANA top-level domain.
    func domain(at start: Int) -> DomainName? {
        var labels: [Range<Int>] = []
        var index = start
        while true {
            let labelStart = index
            while index < count, isLabelCharacter(scalars[index]), index - labelStart < 63,
                  index == labelStart || !isScriptBreak(at: index) { index += 1 }
            guard index > labelStart, scalars[labelStart] != "-", scalars[index - 1] != "-" else { break }
            labels.append(labelStart..<index)
            guard index + 1 < count, scalars[index] == ".", isLabelCharacter(scalars[index + 1]) else { break }
            index += 1
        }
        guard labels.count >= 2, var last = labels.last else { return nil }
        if !isTopLevelDomain(last) {
            // In text without spaces the last label runs on into the next
            // word (`twitter.みんなです`): the top-level domain is the longest
            // start of it that is one (`みんな`).
            guard scalars[last].contains(where: Characters.isUnspaced),
                  let cut = stride(from: last.upperBound - 1, to: last.lowerBound, by: -1).first(where: { isTopLevelDomain(last.lowerBound..<$0) })
            else { return nil }
            last = last.lowerBound..<cut
            labels[labels.count - 1] = last
        }
        return DomainName(range: start..<last.upperBound, labels: labels)
    }

    /// Whether the label at `label` is a top-level domain of IANA's list
    /// (an internationalised one by its Punycode).
    func isTopLevelDomain(_ label: Range<Int>) -> Bool {
        guard label.count <= 63, scalars[label].allSatisfy({ Characters.isLetterOrDigit($0) && !Characters.isDigit($0) }),
              let ascii = asciiLabel(label) else { return false }
        return TopLevelDomains.all.contains(ascii)
    }

    func isLabelCharacter(_ scalar: Unicode.Scalar) -> Bool {
        Characters.isLetterOrDigit(scalar) || scalar == "-"
    }

    /// Whether a word changes at `index` between a script written without
    /// spaces and another (`example.com中国語t.co`): in text without spaces,
    /// that is where one word ends and the next begins, so no label of a
    /// bare address crosses it.
    func isScriptBreak(at index: Int) -> Bool {
        guard index > 0 else { return false }
        let (before, here) = (scalars[index - 1], scalars[index])
        guard !(before.isASCII && here.isASCII) else { return false }
        return Characters.isUnspaced(before) != Characters.isUnspaced(here)
    }

    /// E-mail addresses: `local@domain.tld`, as `mailto:` links.
    mutating func findEmailAddresses() {
        for at in 0..<count where scalars[at] == "@" && !isClaimed(at) {
            var start = at
            while start > 0, at - start <= 64, isLocalCharacter(scalars[start - 1]), !isScriptBreak(at: start) { start -= 1 }
            // A local part is at most 64 characters (RFC 5321).
            guard start == 0 || !isLocalCharacter(scalars[start - 1]) || isScriptBreak(at: start) else { continue }
            // After a quoted string (`test."foo".bar@`), the address is the
            // quoted local part's, which is not found: not `bar@`, another mailbox.
            if start > 0, scalars[start - 1] == "\"", scalars[start] == "." { continue }
            // Quotes around an address are the text's (`'jane@example.com'`).
            while start < at, scalars[start] == "." || scalars[start] == "'" { start += 1 }
            guard start < at, scalars[at - 1] != "." else { continue }
            if start > 0, Self.beforeNoAddress.contains(scalars[start - 1]), !isEmailLabel(before: start - 1) { continue }
            guard let domain = domain(at: at + 1) else { continue }
            let end = domain.range.upperBound
            // git@github.com:owner/repo is an SCP-style address, not e-mail.
            if self[end] == ":", let next = self[end + 1], !Characters.endsURL(next) { continue }
            if let next = self[end], next == "@" || next == "_" || isLabelCharacter(next) && !isScriptBreak(at: end) { continue }
            claim(start..<end, .email, url: "mailto:" + text(start..<end))
        }
    }

    private func isLocalCharacter(_ scalar: Unicode.Scalar) -> Bool {
        Characters.isLetterOrDigit(scalar) || Self.localPunctuation.contains(scalar)
    }

    /// Whether the `:` at `colon` ends a label that says an e-mail address
    /// follows (`email:jane@example.com`, `E-Mail:`, `mail:`), as forms and
    /// signatures write it: no scheme, but the address is one.
    private func isEmailLabel(before colon: Int) -> Bool {
        guard scalars[colon] == ":" else { return false }
        var start = colon
        while start > 0, Characters.isASCIILetter(scalars[start - 1]) || scalars[start - 1] == "-", colon - start < 6 { start -= 1 }
        guard start == 0 || !Characters.isLetterOrDigit(scalars[start - 1]) else { return false }
        return Self.emailLabels.contains(text(start..<colon).lowercased())
    }

    private static let emailLabels: Set<String> = ["email", "e-mail", "mail"]
    private static let beforeNoAddress = ASCIISet("/:@")
    /// RFC 5322's atext that addresses use: `bob.o'neil@example.ie` has an apostrophe.
    private static let localPunctuation = ASCIISet("._%+-'")
    private static let notBeforeDomains = ASCIISet(".@/\\_#$%&=+~:")

    /// Two-label names with these top-level domains are file names far more
    /// often than web sites (`README.md`, `setup.py`, `main.rs`), so they are
    /// links only with `www.`, a port or a path.
    static let fileExtensionTLDs: Set<String> = [
        "cc", "md", "ml", "mov", "pm", "ps", "py", "rs", "sh", "so", "tf", "zip",
    ]

    /// Bare web addresses: `www.example.com`, `example.org/path`, `bücher.de`,
    /// as `https://` links.
    mutating func findBareWebAddresses() {
        var start = 0
        while start < count {
            guard !isClaimed(start), Characters.isLetterOrDigit(scalars[start]),
                  start == 0 || isDomainBoundary(scalars[start - 1]) || isScriptBreak(at: start)
            else {
                start += 1
                continue
            }
            guard hasInnerDot(from: start), let domain = domain(at: start) else {
                // Skip the rest of this word: no address starts inside it.
                let word = start
                while start < count, isLabelCharacter(scalars[start]) || scalars[start] == ".", start == word || !isScriptBreak(at: start) {
                    start += 1
                }
                continue
            }
            var end = domain.range.upperBound
            if let next = self[end], next == "@" || next == "_" || next == "-" {
                start = end
                continue
            }
            var hasPortOrPath = false
            if self[end] == ":", let digit = self[end + 1], Characters.isDigit(digit) {
                end += 1
                while end < count, Characters.isDigit(scalars[end]), end - domain.range.upperBound <= 6 { end += 1 }
                hasPortOrPath = true
            }
            if let next = self[end], "/?#".unicodeScalars.contains(next) {
                // A name in ASCII: its path ends where unspaced text begins.
                let plain = scalars[domain.range].allSatisfy(\.isASCII)
                end = urlEnd(from: start, scanningFrom: end, notBefore: end, unspacedEnds: plain)
                hasPortOrPath = true
            }
            if isPlausibleAddress(domain, hasPortOrPath: hasPortOrPath) {
                claim(start..<end, .web, url: "https://" + text(start..<end))
            }
            start = end
        }
    }

    /// Whether the word at `start` has a dot followed by a label character:
    /// a cheap test that spares most words the full parse.
    private func hasInnerDot(from start: Int) -> Bool {
        var index = start
        while index + 1 < count {
            let scalar = scalars[index]
            if scalar == "." { return isLabelCharacter(scalars[index + 1]) }
            guard isLabelCharacter(scalar), index == start || !isScriptBreak(at: index) else { return false }
            index += 1
        }
        return false
    }

    private func isPlausibleAddress(_ domain: DomainName, hasPortOrPath: Bool) -> Bool {
        let tld = text(domain.labels.last!)
        // "done.Next" is a sentence without a space, not a site.
        guard tld == tld.lowercased() || tld == tld.uppercased() else { return false }
        let hasWWW = text(domain.labels[0]).lowercased() == "www"
        if domain.labels.count == 2, !hasWWW, !hasPortOrPath, Self.fileExtensionTLDs.contains(tld.lowercased()) { return false }
        return true
    }

    private func isDomainBoundary(_ scalar: Unicode.Scalar) -> Bool {
        !(isLabelCharacter(scalar) || Self.notBeforeDomains.contains(scalar))
    }
}
