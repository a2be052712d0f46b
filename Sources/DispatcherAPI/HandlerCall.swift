import DBus
import Routing

extension DispatcherAPI {
    /// What a handler is told with each URL: `HandleURL`'s context
    /// dictionary, written by the daemon and read by every handler host
    /// (the `OpenURL` library calls it `URLHandlerContext`).
    public struct HandlerContext: Sendable, Equatable {
        /// The bus name of the program that opened the URL.
        public let caller: String
        /// Its application ID, when known ("" otherwise); a hint, not a credential.
        public let callerAppID: String
        /// The URL before any rewrite.
        public let originalURL: String
        /// The caller's activation token, passed on so the opened window may take focus.
        public let activationToken: String?

        /// A context for a URL `caller` (whose app ID is `callerAppID`) opened as `originalURL`.
        public init(caller: String, callerAppID: String, originalURL: String, activationToken: String?) {
            self.caller = caller
            self.callerAppID = callerAppID
            self.originalURL = originalURL
            self.activationToken = activationToken
        }

        /// `HandleURL`'s arguments: `url` and this context, written as they
        /// are sent (the call goes out with every URL a handler is asked
        /// about), the context's keys in order. What a handler reads is
        /// `dictionary`; `DispatcherTests.theHandlerContextGoesOutAsItsDictionary`
        /// holds the two to each other.
        /// - Throws: `InvalidArgs` when a string holds NUL, which D-Bus cannot carry.
        public func handleURLArguments(url: String) throws(DBusError) -> EncodedBody {
            try EncodedBody(signature: Self.handleURLSignature) { body throws(DBusError) in
                try body.append(url)
                try body.appendStringVariants { entries throws(DBusError) in
                    if let activationToken { try entries.append(OptionKey.activationToken, activationToken) }
                    try entries.append(OptionKey.caller, caller)
                    try entries.append(OptionKey.callerAppID, callerAppID)
                    try entries.append(OptionKey.originalURL, originalURL)
                }
            }
        }

        /// The contract's `HandleURL` arguments as a body's signature (`sa{sv}`).
        static let handleURLSignature = DBus.Signature(Signatures.handleURL.arguments.map(\.type))

        /// The context as `HandleURL`'s `a{sv}` argument.
        public var dictionary: [String: Variant] {
            var context: [String: Variant] = [
                OptionKey.caller: Variant(caller), OptionKey.callerAppID: Variant(callerAppID), OptionKey.originalURL: Variant(originalURL),
            ]
            if let activationToken { context[OptionKey.activationToken] = Variant(activationToken) }
            return context
        }

        /// Reads the dictionary of a call about `url`; missing keys read as empty.
        public init(decoding context: [String: Variant], url: String) {
            self.init(
                caller: context[OptionKey.caller]?.get(String.self) ?? "", callerAppID: context[OptionKey.callerAppID]?.get(String.self) ?? "",
                originalURL: context[OptionKey.originalURL]?.get(String.self) ?? url,
                activationToken: context[OptionKey.activationToken]?.get(String.self))
        }
    }
}

extension HandlerReply {
    /// The reply's arguments, as `HandleURL`'s `(ss)` reply carries them.
    public var arguments: [Value] { [.string(word), .string(url)] }

    /// Reads `HandleURL`'s `(ss)` reply.
    /// - Throws: `InvalidArgs` saying what is wrong with it: the signature, or an unknown result.
    public init(reply: [Value]) throws(DBusError) {
        guard let (result, url) = try? reply.decode(String.self, String.self) else {
            throw .invalidArgs("replied with signature '\(reply.signature)' instead of 'ss'")
        }
        guard let reply = HandlerReply(word: result, url: url) else {
            throw .invalidArgs("replied with unknown result '\(result.prefix(64))'")
        }
        self = reply
    }
}
