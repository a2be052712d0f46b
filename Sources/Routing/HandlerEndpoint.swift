/// Where a run-time handler lives: the object its owner exported, by its
/// D-Bus object path (checked as one when the handler registered).
///
/// Defined here, not beside the D-Bus code, so that the routing core can be
/// compiled specialized for the daemon's handlers (`Router`, `walk`,
/// `HandlerRegistry`): generic code left unspecialized looks up type
/// metadata at run time, for every URL.
public struct HandlerEndpoint: Sendable, Equatable {
    /// The object path its owner exported it at.
    public let path: String

    /// The endpoint at `path`, a valid D-Bus object path.
    public init(path: String) {
        self.path = path
    }
}
