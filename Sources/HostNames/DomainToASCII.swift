import SafeText

/// UTS #46 ToASCII with the flags the WHATWG URL Standard sets: CheckHyphens,
/// UseSTD3ASCIIRules, Transitional_Processing and VerifyDnsLength all false.
enum DomainToASCII {
    static func convert(_ domain: String) -> Result<String, HostName.Failure> {
        // An ASCII domain is lowercased, whatever Unicode ToASCII would say of
        // it (URL Standard since June 2026, whatwg/url#914; browsers did so
        // already): `xn--a.evil.example` is a host browsers go to, so it must
        // match `*.evil.example`. ToASCII's objections are validation errors only.
        if domain.utf8.allSatisfy({ $0 < 0x80 }) {
            let lower = String(decoding: domain.utf8.map(asciiLowercased), as: UTF8.self)
            return lower.isEmpty ? .failure(.init("is empty")) : .success(lower)
        }
        // 1. Map.
        var mapped: [Unicode.Scalar] = []
        mapped.reserveCapacity(domain.unicodeScalars.count)
        for scalar in domain.unicodeScalars {
            if scalar.isASCII {
                mapped.append(Unicode.Scalar(asciiLowercased(UInt8(scalar.value))))
                continue
            }
            let (status, replacement) = IDNAMapping.lookup(scalar)
            switch status {
            case .valid, .deviation: mapped.append(scalar)
            case .mapped: mapped.append(contentsOf: replacement)
            case .ignored: break
            case .disallowed: return .failure(.init("contains \(scalar.codePointName), which IDNA does not allow in a host"))
            }
        }
        // 2. Normalise (NFC), 3. break into labels, 4. convert and validate each.
        let normalized = nfc(mapped)
        var labels: [String] = []
        // Split on scalars, not Characters: "." followed by a combining mark is
        // one Character but still ends a label.
        for labelScalars in normalized.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false) {
            let scalars = Array(labelScalars)
            let label = String(String.UnicodeScalarView(labelScalars))
            if label.utf8.starts(with: "xn--".utf8) {
                guard scalars.allSatisfy({ $0.isASCII }) else { return .failure(.init("label '\(displayable(label))' mixes 'xn--' with non-ASCII characters")) }
                // UTS #46 since Unicode 16 also refuses a label that decodes to
                // ASCII only (`xn--abc-`); browsers still go to such hosts, so
                // refusing them here would let them slip past host patterns.
                guard let decoded = Punycode.decode(label.utf8.dropFirst(4)), !decoded.isEmpty else { return .failure(.init("label '\(displayable(label))' is not valid Punycode")) }
                let unicode = decoded.compactMap(Unicode.Scalar.init)
                if let problem = problem(with: unicode, decoded: true) { return .failure(.init("label '\(displayable(label))' \(problem)")) }
                labels.append(label)
            } else {
                if let problem = problem(with: scalars, decoded: false) { return .failure(.init("a label \(problem)")) }
                if scalars.allSatisfy({ $0.isASCII }) {
                    labels.append(label)
                } else {
                    guard let encoded = Punycode.encode(scalars.map { $0.value }) else { return .failure(.init("a label is too long to encode")) }
                    labels.append("xn--" + encoded)
                }
            }
        }
        let result = labels.joined(separator: ".")
        return result.isEmpty ? .failure(.init("is empty")) : .success(result)
    }

    /// The UTS #46 validity criteria that can reject a label (section 4.1).
    private static func problem(with label: [Unicode.Scalar], decoded: Bool) -> String? {
        if decoded, nfc(label).unicodeScalars.elementsEqual(label) == false { return "is not in normalisation form C" }
        // A decoded label that itself begins with "xn--" is not refused either,
        // for the same reason as ASCII-only decodings: browsers go there.
        if decoded, label.contains(".") { return "contains a '.' once decoded" }
        if let first = label.first {
            switch first.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return "begins with a combining mark (\(first.codePointName))"
            default: break
            }
        }
        if decoded {
            for scalar in label where !scalar.isASCII {
                switch IDNAMapping.lookup(scalar).0 {
                case .valid, .deviation: continue
                default: return "contains \(scalar.codePointName), which IDNA does not allow in a host"
                }
            }
        }
        return nil
    }

    /// NFC through the Swift runtime's own normaliser (the one `String`
    /// comparison uses; public, though underscored, and what swift-foundation calls).
    private static func nfc(_ scalars: [Unicode.Scalar]) -> String {
        let text = String(String.UnicodeScalarView(scalars))
        return String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }
}

func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
}
