import DispatcherAPI

/// `openurl handle`'s options: what the handler matches, and the command.
public struct HandleOptions: Equatable, Sendable {
    /// The spec registered (its name defaults to the command line).
    public var match = DispatcherAPI.HandlerMatch(schemes: [])
    public var command: [String] = []
}

/// `openurl detect`'s options.
public struct DetectOptions: Equatable, Sendable {
    public var text: String?
    public var json = false
    public var open = false
    public var kinds: [String] = []
}
