/// A D-Bus server address as the specification writes it: alternatives
/// separated by `;`, each a transport and `key=value` pairs separated by
/// `,`, values with bytes escaped as `%XX`. Only the transports a session
/// bus uses are reached: `unix:path=` and `unix:abstract=`.
struct BusAddress: Equatable, Sendable {
    /// Where a socket of the `unix` transport is.
    enum Socket: Equatable, Sendable {
        /// A socket in the file system.
        case path(String)
        /// A socket in Linux's abstract namespace (the name without its leading NUL).
        case abstract(String)
    }

    /// The alternatives that can be connected to, in the address's order.
    let sockets: [Socket]

    /// Parses `text`.
    /// - Throws: `BadAddress` for a malformed address, or one with no
    ///   alternative this module connects to (tcp, launchd, autolaunch).
    init(_ text: String) throws(DBusError) {
        var sockets: [Socket] = []
        var unsupported: [String] = []
        for alternative in text.split(separator: ";", omittingEmptySubsequences: true) {
            guard let colon = alternative.firstIndex(of: ":") else {
                throw DBusError(.badAddress, "the bus address \(quoted(text)) has an alternative with no transport")
            }
            let transport = String(alternative[..<colon])
            var values: [String: String] = [:]
            for pair in alternative[alternative.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: true) {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw DBusError(.badAddress, "the bus address \(quoted(text)) has a key without a value")
                }
                values[String(pair[..<equals])] = try Self.unescape(pair[pair.index(after: equals)...], in: text)
            }
            guard transport == "unix" else {
                unsupported.append(transport)
                continue
            }
            if let path = values["path"] {
                sockets.append(.path(path))
            } else if let name = values["abstract"] {
                sockets.append(.abstract(name))
            } else {
                unsupported.append("unix without path= or abstract=")
            }
        }
        guard !sockets.isEmpty else {
            let what = unsupported.isEmpty ? "no alternative" : "only " + unsupported.joined(separator: ", ")
            throw DBusError(.badAddress, "the bus address \(quoted(text)) names \(what); this program connects to unix:path= and unix:abstract=")
        }
        self.sockets = sockets
    }

    /// A value with its `%XX` escapes undone.
    private static func unescape(_ value: Substring, in text: String) throws(DBusError) -> String {
        var bytes: [UInt8] = []
        var utf8 = value.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else {
                throw DBusError(.badAddress, "the bus address \(quoted(text)) has a bad %-escape")
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
