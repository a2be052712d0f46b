/// Whether `condition` holds within `limit`, asked every 2 ms: for what
/// another thread or queue makes true in its own time (a closed connection
/// freed once its loop lets go), where nothing can be awaited instead.
public func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) async throws -> Bool {
    try await eventuallyMade(within: limit) { condition() ? () : nil } != nil
}

/// The first value `make` makes within `limit`, asked every 2 ms; `nil` if
/// none. For what other tests of a parallel run may hold for a while: an
/// inotify instance (128 for each user, and the run's daemons, portals and
/// GTK windows hold many at once) is made again once one is let go.
public func eventuallyMade<T>(within limit: Duration = .seconds(5), _ make: () -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if let made = make() { return made }
        try await Task.sleep(for: .milliseconds(2))
    }
    return make()
}
