/// One `[Desktop Action NAME]` of a desktop entry.
public struct DesktopAction: Sendable, Equatable {
    /// The action's ID, from `Actions=`.
    public let id: String
    /// Its `Name=`.
    public let name: String
    /// Its `Exec=`, if it has one.
    public let exec: String?
}
