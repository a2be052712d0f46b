import SafeText

/// The WHATWG IPv4 parser: `127.1`, `0x7f.1`, `0177.0.0.1` and `2130706433`
/// are all `127.0.0.1` to a browser.
struct IPv4Address: CustomStringConvertible {
    let value: UInt32

    var description: String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    /// The standard's "ends in a number": whether the host must parse as IPv4.
    static func endsInANumber(_ host: String) -> Bool {
        var host = host
        return host.withUTF8 { endsInANumber($0) }
    }

    /// `endsInANumber` on a host's bytes, which may be in any case.
    static func endsInANumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // The last label, one trailing dot ignored, found without splitting
        // the host (every URL's host is asked this).
        var end = bytes.count
        if end > 0, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        var start = end
        while start > 0, bytes[start - 1] != UInt8(ascii: ".") { start -= 1 }
        let last = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard !last.isEmpty else { return false }
        if last.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return true }
        // Else only `0x` and hex digits (none included) parse as a number:
        // octal and decimal take digits alone. Checked in place, without the
        // parser's copy (a host's last label is nearly always a word).
        guard last.count >= 2, last[0] == UInt8(ascii: "0"), last[1] | 0x20 == UInt8(ascii: "x") else { return false }
        return last.dropFirst(2).allSatisfy { hexDigitValue($0) != nil }
    }

    static func parse(_ host: String) -> Result<IPv4Address, HostName.Failure> {
        var parts = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        if parts.last?.isEmpty == true, parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return .failure(.init("'\(displayable(host))' has more than four parts for an IPv4 address")) }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = number(part) else { return .failure(.init("'\(displayable(host))' is not a valid IPv4 address")) }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }), let last = numbers.last,
              last < UInt64(1) << (8 * (5 - numbers.count))
        else { return .failure(.init("'\(displayable(host))' has a part too large for an IPv4 address")) }
        var address = last
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * (3 - index)) }
        return .success(IPv4Address(value: UInt32(address)))
    }

    /// One part: decimal, `0x` hex or leading-`0` octal; `nil` if it is none of
    /// them (or larger than any address could use).
    private static func number(_ part: [UInt8]) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"), digits.dropFirst().first.map({ $0 | 0x20 }) == UInt8(ascii: "x") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for digit in digits {
            guard let digitValue = hexDigitValue(digit).map(UInt64.init), digitValue < radix else { return nil }
            value = value * radix + digitValue
            if value > UInt64(UInt32.max) * 2 { value = UInt64(UInt32.max) * 2 }  // too large either way; no overflow
        }
        return value
    }
}

/// The WHATWG IPv6 parser and serialiser (the canonical form RFC 5952 gives too).
struct IPv6Address: CustomStringConvertible {
    let pieces: [UInt16]

    static func parse(_ input: ArraySlice<UInt8>) -> Result<IPv6Address, HostName.Failure> {
        let failure = HostName.Failure("'[\(displayable(String(decoding: input, as: UTF8.self)))]' is not a valid IPv6 address")
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int?
        let c = Array(input)
        var pointer = 0
        func at(_ i: Int) -> UInt8? { i < c.count ? c[i] : nil }
        if at(0) == UInt8(ascii: ":") {
            guard at(1) == UInt8(ascii: ":") else { return .failure(failure) }
            pointer = 2
            pieceIndex = 1
            compress = 1
        }
        while let char = at(pointer) {
            guard pieceIndex < 8 else { return .failure(failure) }
            if char == UInt8(ascii: ":") {
                guard compress == nil else { return .failure(failure) }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let digit = at(pointer).flatMap(hexDigitValue) {
                value = value * 16 + UInt16(digit)
                pointer += 1
                length += 1
            }
            if at(pointer) == UInt8(ascii: ".") {
                guard length > 0 else { return .failure(failure) }
                pointer -= length
                guard pieceIndex <= 6 else { return .failure(failure) }
                var numbersSeen = 0
                while at(pointer) != nil {
                    var ipv4Piece: Int?
                    if numbersSeen > 0 {
                        guard at(pointer) == UInt8(ascii: "."), numbersSeen < 4 else { return .failure(failure) }
                        pointer += 1
                    }
                    guard let first = at(pointer), first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return .failure(failure) }
                    while let digit = at(pointer), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") {
                        let number = Int(digit - UInt8(ascii: "0"))
                        if let piece = ipv4Piece {
                            guard piece != 0 else { return .failure(failure) }
                            ipv4Piece = piece * 10 + number
                        } else {
                            ipv4Piece = number
                        }
                        guard ipv4Piece! <= 255 else { return .failure(failure) }
                        pointer += 1
                    }
                    address[pieceIndex] = address[pieceIndex] * 0x100 + UInt16(ipv4Piece!)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return .failure(failure) }
                break
            } else if at(pointer) == UInt8(ascii: ":") {
                pointer += 1
                guard at(pointer) != nil else { return .failure(failure) }
            } else if at(pointer) != nil {
                return .failure(failure)
            }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0, swaps > 0 {
                address.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return .failure(failure)
        }
        return .success(IPv6Address(pieces: address))
    }

    /// Lowercase hex pieces; the first longest run of two or more zero pieces as `::`.
    var description: String {
        var bestStart = -1, bestLength = 1
        var index = 0
        while index < 8 {
            guard pieces[index] == 0 else { index += 1; continue }
            var end = index
            while end < 8, pieces[end] == 0 { end += 1 }
            if end - index > bestLength { bestStart = index; bestLength = end - index }
            index = end
        }
        var output = ""
        var ignore0 = false
        for (index, piece) in pieces.enumerated() {
            if ignore0, piece == 0 { continue }
            ignore0 = false
            if index == bestStart {
                output += index == 0 ? "::" : ":"
                ignore0 = true
                continue
            }
            output += String(piece, radix: 16)
            if index != 7 { output += ":" }
        }
        return output
    }
}
