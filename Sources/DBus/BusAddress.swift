import SafeText

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
        guard let bytes = percentDecodedBytes(value) else {
            throw DBusError(.badAddress, "the bus address \(quoted(text)) has a bad %-escape")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
