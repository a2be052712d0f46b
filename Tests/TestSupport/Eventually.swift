/// Whether `condition` holds within `limit`, asked every 2 ms: for what
/// another thread or queue makes true in its own time (a closed connection
/// freed once its loop lets go), where nothing can be awaited instead.
public func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    return condition()
}
