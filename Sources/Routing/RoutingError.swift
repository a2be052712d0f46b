/// Why the routing core refused something, with a message a person can act on.
public struct RoutingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal this is; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public static let invalidURL = Code(name: "invalid URL")
        public static let invalidSpec = Code(name: "invalid handler spec")
        public static let limitExceeded = Code(name: "limit exceeded")
        public static let noSuchHandler = Code(name: "no such handler")
        public static let notOwner = Code(name: "not the owner")
        public var description: String { name }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
