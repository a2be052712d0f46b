extension TextScan {
    /// Phone numbers: international (`+44 20 7946 0958`, `+1 (555) 010-9999`,
    /// `+4930123456`) and the common national shapes (North American
    /// `(555) 010-9999`, `1-800-555-0199`, `555.010.9999`; trunk-prefixed
    /// `020 7946 0958`, `030 1234567`, `01 23 45 67 89`), as `tel:` links with
    /// only the digits (and `+`). Dates, versions, prices, IP addresses, ISBNs
    /// and card numbers do not have these shapes.
    ///
    /// With a `region`, national numbers are written as international ones
    /// (`tel:+33612345678` for `06 12 34 56 78` in France, one group
    /// `0612345678` too), and a number after one of the region's
    /// international prefixes (`00`, `011`) gets `+` instead; without one,
    /// a national number stays national (`tel:0612345678`).
    mutating func findPhoneNumbers(region: PhoneRegion? = nil) {
        var start = 0
        while start < count {
            guard !isClaimed(start), isPhoneStart(at: start) else {
                start += 1
                continue
            }
            let (end, groups, separators) = phoneCandidate(at: start)
            if end > start, isPhoneEnd(at: end),
               let number = phoneNumber(groups: groups, separators: separators, international: scalars[start] == "+", region: region) {
                claim(start..<end, .phone, url: "tel:" + number)
            }
            start = max(end, start + 1)
        }
    }

    /// What follows `tel:` for a candidate, or `nil` when it is no number.
    private func phoneNumber(groups: [String], separators: Set<Unicode.Scalar>, international: Bool, region: PhoneRegion?) -> String? {
        let digits = groups.joined()
        if international {
            return isPhoneNumber(groups: groups, separators: separators, international: true) ? "+" + digits : nil
        }
        guard let region else {
            return isPhoneNumber(groups: groups, separators: separators, international: false) ? digits : nil
        }
        // `00 33 6 12 34 56 78`, `0033612345678`; `011 44 20 7946 0958` in North America.
        // (No calling code starts with 0, and no national number with an international prefix.)
        if let prefix = region.internationalPrefixes.first(where: { digits.hasPrefix($0) }) {
            var rest = groups
            rest[0] = String(rest[0].dropFirst(prefix.count))
            if rest[0].isEmpty { rest.removeFirst() }
            guard let first = rest.first?.first, first != "0",
                  isPhoneNumber(groups: rest, separators: separators, international: true) else { return nil }
            return "+" + rest.joined()
        }
        let trunk = region.trunkPrefix
        let shaped = isPhoneNumber(groups: groups, separators: separators, international: false)
        // One group is a number only as the region writes its own: its trunk prefix, 10 or 11 digits.
        let oneGroup = groups.count == 1 && trunk == "0" && digits.hasPrefix("0") && (10...11).contains(digits.count)
        guard shaped || oneGroup else { return nil }
        if isNorthAmerican(groups) {
            // Another region's shape: kept national, as without a region.
            guard region.callingCode == "1" else { return digits }
            return "+1" + (digits.count == 11 ? String(digits.dropFirst()) : digits)
        }
        // A trunk-prefixed number: the prefix gives way to the calling code
        // (Italy has none, and its numbers keep their 0 after +39).
        guard digits.hasPrefix(trunk) else { return digits }
        return "+" + region.callingCode + digits.dropFirst(trunk.count)
    }

    private func isNorthAmerican(_ groups: [String]) -> Bool {
        let sizes = groups.map(\.count)
        return sizes == [3, 3, 4] || (sizes == [1, 3, 3, 4] && groups[0] == "1")
    }

    private static let notBeforeNumbers = ASCIISet(".,-+/:$_#@=%")
    private static let numberJoiners = ASCIISet(".,:/-")
    private static let separators: Set<Unicode.Scalar> = [" ", "-", ".", "\u{00A0}", "\u{2011}", "\u{2010}"]

    private func isPhoneStart(at index: Int) -> Bool {
        let scalar = scalars[index]
        guard Characters.isDigit(scalar) || ((scalar == "+" || scalar == "(") && self[index + 1].map(Characters.isDigit) == true)
        else { return false }
        guard let previous = self[index - 1] else { return true }
        if previous == "(" { return scalar != "(" }
        return !(Characters.isLetterOrDigit(previous) || Self.notBeforeNumbers.contains(previous) || "€£¥".unicodeScalars.contains(previous))
    }

    /// Digit groups from `start`, joined by single separators or an area code
    /// in parentheses; ends before a trailing separator.
    private func phoneCandidate(at start: Int) -> (end: Int, groups: [String], separators: Set<Unicode.Scalar>) {
        var groups: [String] = []
        var separators = Set<Unicode.Scalar>()
        var index = start
        if scalars[index] == "+" { index += 1 }
        var end = index
        var inParentheses = false
        while index < count, index - start < 32 {
            let scalar = scalars[index]
            if Characters.isDigit(scalar) {
                var group = ""
                while index < count, Characters.isDigit(scalars[index]) {
                    group.unicodeScalars.append(scalars[index])
                    index += 1
                }
                groups.append(group)
                end = index
                if inParentheses {
                    guard self[index] == ")" else { return (start, [], []) }
                    inParentheses = false
                    index += 1
                    end = index
                    if self[index] == " " || self[index] == "-" { separators.insert(scalars[index]); index += 1 }
                }
            } else if scalar == "(" && !inParentheses && groups.count <= 1 && self[index + 1].map(Characters.isDigit) == true {
                inParentheses = true
                separators.insert("(")
                index += 1
            } else if Self.separators.contains(scalar), let next = self[index + 1], Characters.isDigit(next) || next == "(" {
                separators.insert(scalar)
                index += 1
            } else {
                break
            }
        }
        return (end, groups, separators)
    }

    /// Not followed by more of a number: a letter or digit, a decimal part
    /// (`.5`, `,50`), `%`, a time (`:30`) or a date (`/12`).
    private func isPhoneEnd(at end: Int) -> Bool {
        guard let next = self[end] else { return true }
        if Characters.isLetterOrDigit(next) || next == "%" || next == "@" || next == "_" { return false }
        if Self.numberJoiners.contains(next), let after = self[end + 1], Characters.isDigit(after) { return false }
        return true
    }

    private func isPhoneNumber(groups: [String], separators: Set<Unicode.Scalar>, international: Bool) -> Bool {
        let digits = groups.reduce(0) { $0 + $1.count }
        let sizes = groups.map(\.count)
        if international {
            // E.164: at most 15 digits; fewer than 8 is no reachable number.
            return (8...15).contains(digits) && !(separators.contains(".") && groups.count >= 4 && sizes.allSatisfy { $0 <= 3 })
        }
        guard groups.count >= 2 else { return false }
        if separators.contains(".") && separators != ["."] { return false }
        // North American: [1-]AAA-EEE-NNNN, with (AAA) allowed.
        let northAmerican = isNorthAmerican(groups)
        // A trunk prefix 0 and 10 or 11 digits (UK, Germany, France, …), groups of 2 to 8.
        let trunk = groups[0].hasPrefix("0") && (10...11).contains(digits) && sizes.allSatisfy { (2...8).contains($0) }
            && !separators.contains(".")
        return northAmerican || trunk
    }
}
