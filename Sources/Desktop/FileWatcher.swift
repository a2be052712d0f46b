import FileAccess
import Dispatch
import Glibc
import Posix
import Synchronization

/// Calls back when files in some directories may have changed (the rule
/// directories; the directories holding `mimeapps.list`): inotify on each
/// directory and, so that creating one is noticed too, on its parents.
/// Only names `names` accepts count. Bursts of events (an editor's save is
/// several) are coalesced into one call after `settle`.
public final class FileWatcher: @unchecked Sendable {
    // @unchecked: `source` is a constant that is only resumed in init and
    // cancelled in deinit (Dispatch sources are thread-safe for both); every
    // other stored property is a constant of a Sendable type or a Mutex.
    private let descriptor: Int32
    private let directories: [String]
    private let watches = Mutex<[Int32: String]>([:])
    private let pending = Mutex(false)
    private let settle: DispatchTimeInterval
    private let queue = DispatchQueue(label: "openurld.file-watcher")
    private let source: any DispatchSourceRead
    private let onChange: @Sendable () -> Void
    private let names: @Sendable (String) -> Bool

    /// Starts watching; `nil` when inotify is not available (then `FilePoller` can stand in).
    /// - Parameter names: which file names in the directories count (all, by default).
    public init?(directories: [String], names: @escaping @Sendable (String) -> Bool = { _ in true },
                 settle: DispatchTimeInterval = .milliseconds(100), onChange: @escaping @Sendable () -> Void) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.directories = directories
        self.names = names
        self.settle = settle
        self.onChange = onChange
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        rearm()
        source.setEventHandler { [weak self] in self?.drain() }
        source.resume()
    }

    deinit {
        source.cancel()
        close(descriptor)
    }

    /// Watches each directory and its two parents (for the rule directories:
    /// up to the config directory above `openurld`), and further up to the nearest one that exists, so
    /// that creating any of them is noticed (adding a watch twice is harmless).
    ///
    /// A parent is watched only for what can happen to a directory in it
    /// (created, removed, moved, its permissions changed), not for files
    /// written: the parents of `~/.config` are the home directory and
    /// `/home`, where every file an application writes would otherwise wake
    /// the watcher for nothing (an event it then finds irrelevant). Added
    /// with `IN_MASK_ADD`, so that a directory that is also watched itself
    /// keeps its own events whichever is added first.
    private func rearm() {
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        let parentMask = mask & ~UInt32(IN_CLOSE_WRITE) | UInt32(IN_MASK_ADD)
        watches.withLock { watches in
            for directory in directories {
                var path = directory
                for level in 0... {
                    let watch = inotify_add_watch(descriptor, path, (level == 0 ? mask : parentMask) | UInt32(IN_ONLYDIR))
                    if watch >= 0 { watches[watch] = path }
                    guard level < 2 || watch < 0, let slash = path.lastIndex(of: "/"), slash != path.startIndex else { break }
                    path = String(path[..<slash])
                }
            }
        }
    }

    /// Whether any of the events in `bytes` (whole `inotify_event`s and
    /// their names) concerns a watched file or directory.
    private func anyRelevant(in bytes: UnsafeRawBufferPointer) -> Bool {
        var relevant = false
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= bytes.count {
            let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let start = offset + MemoryLayout<inotify_event>.size
            let name = String(decoding: bytes[start..<min(start + Int(event.len), bytes.count)].prefix { $0 != 0 }, as: UTF8.self)
            offset = start + Int(event.len)
            events.withLock { $0 += 1 }
            let directory = watches.withLock { $0[event.wd] } ?? ""
            let path = directory + "/" + name
            if directories.contains(directory) && (name.isEmpty || names(name))
                || directories.contains(where: { $0 == path || $0.hasPrefix(path + "/") }) {
                relevant = true
            }
        }
        return relevant
    }

    /// How many events have been read, for tests.
    var eventsRead: Int { events.withLock { $0 } }
    private let events = Mutex(0)

    /// Reads every queued event; schedules one call if any concerns a watched file or directory.
    private func drain() {
        // Read into memory left as it is (not 64 KiB zeroed at each wake-up):
        // only what the kernel wrote is looked at.
        let relevant = withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: MemoryLayout<inotify_event>.alignment) { buffer in
            var relevant = false
            while let count = try? FileDescriptor(descriptor).read(into: buffer), count > 0 {
                if anyRelevant(in: UnsafeRawBufferPointer(rebasing: buffer[..<count])) { relevant = true }
            }
            return relevant
        }
        guard relevant else { return }
        let alreadyPending = pending.withLock { pending in
            defer { pending = true }
            return pending
        }
        guard !alreadyPending else { return }
        queue.asyncAfter(deadline: .now() + settle) { [weak self] in
            guard let self else { return }
            pending.withLock { $0 = false }
            rearm()
            onChange()
        }
    }
}

/// The fallback when inotify cannot be had (the per-user instance limit is
/// reached, or the kernel lacks it): the directories and the files in them
/// that `names` accepts are compared every `interval`, and a change is reported once.
public final class FilePoller: @unchecked Sendable {
    // @unchecked: `timer` is a constant only resumed in init and cancelled in
    // deinit; `last` is only touched on `queue`, where the timer fires.
    private let directories: [String]
    private let names: @Sendable (String) -> Bool
    private let queue = DispatchQueue(label: "openurld.file-poller")
    private let timer: any DispatchSourceTimer
    private var last: [Int] = []

    /// Polls the files of `directories` whose names pass `names` every `interval`, calling `onChange` when one changes.
    public init(directories: [String], names: @escaping @Sendable (String) -> Bool = { _ in true },
                every interval: DispatchTimeInterval = .seconds(2), onChange: @escaping @Sendable () -> Void) {
        self.directories = directories
        self.names = names
        timer = DispatchSource.makeTimerSource(queue: queue)
        queue.sync { last = signature() }
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = signature()
            guard now != last else { return }
            last = now
            onChange()
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// The directories and every file in them, as `stat` sees them (a
    /// symlinked file's target included).
    private func signature() -> [Int] {
        directories.flatMap { directory in
            let listed = ((try? FileSystem.list(directory)) ?? []).map(\.name).filter(names).sorted()
            return FileSystem.signature(directory) + listed.flatMap { FileSystem.signature(directory + "/" + $0) }
        }
    }
}
