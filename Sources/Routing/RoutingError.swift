/// Why the routing core refused something, with a message a person can act on.
public struct RoutingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal this is; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The URL is not one the dispatcher accepts.
        public static let invalidURL = Code(name: "invalid URL")
        /// The handler's spec is malformed.
        public static let invalidSpec = Code(name: "invalid handler spec")
        /// A registration limit was reached.
        public static let limitExceeded = Code(name: "limit exceeded")
        /// No handler has that id.
        public static let noSuchHandler = Code(name: "no such handler")
        /// The handler belongs to someone else.
        public static let notOwner = Code(name: "not the owner")
        public var description: String { name }
    }

    /// What kind of refusal.
    public let code: Code
    /// Why, for people.
    public let message: String

    /// A refusal of kind `code`, explained by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
