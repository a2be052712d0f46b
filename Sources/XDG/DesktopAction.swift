/// One `[Desktop Action NAME]` of a desktop entry.
public struct DesktopAction: Sendable, Equatable {
    public let id: String
    public let name: String
    public let exec: String?
}
