import FileAccess
import XDG

extension DesktopDatabase {
    /// The record of the application behind the dispatcher, read again only when its file changed.
    ///
    /// Its file's signature is taken again when the catalog's watch saw a
    /// change, or was not yet in place when the signature was last taken (a
    /// change after that shows in the watch), and at least once per
    /// `inPlaceEditLatency`, as the catalog's are, for what inotify cannot see.
    public func previousDefaults() -> PreviousDefaults {
        let now = ContinuousClock.now
        let watch = quietWatch
        if let watch, let kept = record.withLock({ kept in
            kept.flatMap { $0.watch === watch && now - $0.checkedAt < inPlaceEditLatency ? $0.record : nil }
        }) {
            return kept
        }
        let file = previousDefaultsFile
        let signature = FileSystem.signature(file.path)
        if let cached = record.withLock({ $0 }), cached.signature == signature {
            record.withLock { $0 = (signature, cached.record, watch, now) }
            return cached.record
        }
        let read = file.read()
        record.withLock { $0 = (signature, read, watch, now) }
        return read
    }

    /// The application a URL of `scheme` goes to when the dispatcher passes
    /// it on, and why (`ApplicationCatalog.fallbackApplication`, with the record).
    public func fallbackApplication(
        forScheme scheme: String, system: ApplicationCatalog.System
    ) throws(ResourceExhausted) -> (entry: DesktopEntry, reason: ApplicationCatalog.FallbackReason)? {
        try catalog().fallbackApplication(forScheme: scheme, system: system, previous: previousDefaults())
    }

    /// Records, per type, the default that is not the dispatcher, when it
    /// differs from the record. Looked at only when the catalog was read
    /// anew since the last time (the defaults cannot have changed
    /// otherwise), and compared in memory first, so that a fallback that
    /// changes nothing costs nothing, and locks and writes nothing.
    /// - Returns: the types whose record changed.
    @discardableResult
    public func recordPreviousDefaults(system: ApplicationCatalog.System) throws(EditError) -> [String] {
        guard let (catalog, generation) = try? generationalCatalog() else { return [] }
        return try recordPreviousDefaults(observing: catalog, generation: generation, system: system)
    }

    /// `recordPreviousDefaults(system:)` for a catalog already read.
    func recordPreviousDefaults(
        observing catalog: ApplicationCatalog, generation: Int, system: ApplicationCatalog.System
    ) throws(EditError) -> [String] {
        let isNew = recordedGeneration.withLock { recorded in
            defer { recorded = generation }
            return recorded != generation
        }
        guard isNew else { return [] }
        let observed = catalog.observedDefaults(system: system)
        let known = previousDefaults()
        guard observed.contains(where: { known[$0.key] != $0.value }) else { return [] }
        return try previousDefaultsFile.store(PreviousDefaults(observed), types: observed.keys)
    }
}
