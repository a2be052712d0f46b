import Glibc
import Posix
import SafeText
import Synchronization

/// Tells whether some paths may have changed since they were last looked
/// at, for the price of one `read`: an inotify instance that nothing polls,
/// read without blocking when asked.
///
/// Each path is watched itself (what happens to the directory's entries or
/// to the file, and its removal or renaming) and through its parent, for
/// that one name (a file replaced by renaming another over it, a symlink
/// pointed elsewhere). A path that does not exist is watched through its
/// nearest ancestor that does, for the next name on the way to it, so that
/// creating it, or any directory above it, counts.
///
/// The kernel queues an event before the call that caused it returns, so a
/// change made before a request was sent is in the queue when the request
/// is read: asking costs a `read` and is as fresh as a `stat` of each path.
/// What inotify cannot see (a change made on another machine to a network
/// file system; a directory renamed somewhere along a symlink's target)
/// needs a `stat` look from time to time besides; `DesktopDatabase` makes one
/// at least once a second.
///
/// Once it has seen a change it keeps saying so: the caller looks at the
/// paths again and makes a new watch. Events about other names in a
/// watched parent do not count.
public final class PathWatch: Sendable {
    /// The inotify descriptor: non-blocking, closed on exec, never polled.
    private let descriptor: Int32
    /// For each watch descriptor, which events count.
    private let interests: [Int32: Interest]
    /// Whether a change was seen (and the events that said so read).
    private let changed = Mutex(false)

    /// Which of a watch's events count.
    private enum Interest {
        /// Every event: the watched path itself.
        case every
        /// Events about these names in the watched directory.
        case names(Set<[UInt8]>)

        mutating func add(_ other: Interest) {
            switch (self, other) {
            case (.every, _): return
            case (_, .every): self = .every
            case (.names(var mine), .names(let theirs)):
                mine.formUnion(theirs)
                self = .names(mine)
            }
        }

        func counts(_ name: UnsafeRawBufferPointer) -> Bool {
            switch self {
            case .every: return true
            case .names(let names): return names.contains(Array(name))
            }
        }
    }

    /// What a watched file or directory reports: its contents or entries
    /// changing, its metadata (a link count), and its going away.
    private static let events = UInt32(
        IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Watches `paths` (absolute); `nil` when inotify cannot be had or a
    /// path cannot be watched (the kernel's limit on watches is reached, a
    /// directory on the way cannot be searched): the caller then has to look.
    public init?(paths: [String]) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        var interests: [Int32: Interest] = [:]
        for path in paths {
            guard Self.watch(path, in: descriptor, into: &interests) else {
                close(descriptor)
                return nil
            }
        }
        self.interests = interests
    }

    deinit { close(descriptor) }

    /// Whether anything the watch counts happened since it was made. Reads
    /// every event queued; once true, always true. True too when the
    /// events cannot be read, or more came than the kernel could queue.
    public func sawChanges() -> Bool {
        changed.withLock { changed in
            if !changed { changed = readEvents() }
            return changed
        }
    }

    /// Reads the queue to its end: whether an event that counts was in it.
    private func readEvents() -> Bool {
        // Room for many events with names, on the stack: this runs for every lookup.
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: MemoryLayout<inotify_event>.alignment) { readEvents(into: $0) }
    }

    private func readEvents(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let capacity = buffer.count
        var counted = false
        while true {
            let count = retryingOnInterrupt { read(descriptor, buffer.baseAddress, capacity) }
            if count < 0 { return counted || Errno.current != .wouldBlock }
            if count == 0 { return true }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + header
                let nameEnd = nameStart + Int(event.len)
                guard nameEnd <= count else { return true }
                if !counted {
                    if event.mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED) != 0 {
                        // Events were lost, or a watch ended (its path went away).
                        counted = true
                    } else if let interest = interests[event.wd] {
                        // The name is NUL-padded to `len`.
                        let name = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<nameEnd])
                        let length = name.firstIndex(of: 0) ?? name.count
                        counted = interest.counts(UnsafeRawBufferPointer(rebasing: name[0..<length]))
                    }
                }
                offset = nameEnd
            }
        }
    }

    /// Adds the watches for `path`: on itself if it exists, and on its
    /// nearest existing ancestor for the name leading to it. False when a
    /// watch could not be added for another reason than the path's absence.
    private static func watch(_ path: String, in descriptor: Int32, into interests: inout [Int32: Interest]) -> Bool {
        guard path.utf8.first == UInt8(ascii: "/") else { return false }
        var components = EscapedBytes.encode(path).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
        var target = path
        var interest = Interest.every
        while true {
            let watch = EscapedBytes.withCString(target) { inotify_add_watch(descriptor, $0, events) }
            if watch >= 0 {
                interests[watch, default: interest].add(interest)
                // An existing path is watched through its parent too, for its own name.
                if case .every = interest, let name = components.popLast() {
                    interest = .names([name])
                    target = directory(components)
                    continue
                }
                return true
            }
            // ENOENT: not there; ENOTDIR: a file where a directory would be. Either way
            // it can only appear by a change to an ancestor that exists.
            guard errno == ENOENT || errno == ENOTDIR, let name = components.popLast() else { return false }
            interest = .names([name])
            target = directory(components)
        }
    }

    /// The absolute path made of `components`.
    private static func directory(_ components: [[UInt8]]) -> String {
        EscapedBytes.decode(components.isEmpty ? [UInt8(ascii: "/")] : components.flatMap { [UInt8(ascii: "/")] + $0 })
    }
}
