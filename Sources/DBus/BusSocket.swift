import Glibc
import Posix

/// A stream socket to a message bus, spoken to without libdbus: connected,
/// authenticated (SASL `EXTERNAL`, the process's user id, as every local
/// bus expects), then carrying whole messages. Every wait is a `poll` with
/// the caller's deadline; the descriptor is non-blocking and close-on-exec.
///
/// `Sendable` as a descriptor is: it is made on one thread and handed to
/// the one that then uses it (a connection's loop), never used by two at once.
struct BusSocket: Sendable {
    let descriptor: FileDescriptor

    /// Connects to the first of `address`'s sockets that accepts, and
    /// authenticates before `deadline`.
    /// - Throws: the connect error of the last socket tried, named as libdbus
    ///   names them (`FileNotFound`, `NoServer`, `AccessDenied`, …), or
    ///   `AuthFailed` when the bus refuses the user, or `NoReply` at the deadline.
    static func connect(to address: BusAddress, before deadline: ContinuousClock.Instant) throws(DBusError) -> BusSocket {
        var failure = DBusError(.failed, "no socket to connect to")
        for socket in address.sockets {
            let descriptor: Int32
            do {
                descriptor = try open(socket)
            } catch {
                failure = error
                continue
            }
            let bus = BusSocket(descriptor: FileDescriptor(descriptor))
            do {
                try bus.authenticate(before: deadline)
                return bus
            } catch {
                bus.close()
                throw error
            }
        }
        throw failure
    }

    /// A connected, non-blocking socket to `socket`.
    private static func open(_ socket: BusAddress.Socket) throws(DBusError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let (name, abstract, shown): ([UInt8], Bool, String) = switch socket {
        case .path(let path): (Array(path.utf8), false, path)
        case .abstract(let name): (Array(name.utf8), true, "@" + name)
        }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path needs its NUL; an abstract name has one before it instead.
        guard !name.contains(0), name.count + 1 <= capacity else {
            throw DBusError(.badAddress, "the bus socket name \(quoted(shown)) is too long or contains a NUL")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in name.enumerated() { path[abstract ? index + 1 : index] = byte }
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + 1
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw error(for: .current, "cannot make a socket for the bus") }
        // A local stream socket connects at once or fails (no EINPROGRESS while blocking).
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                retryingOnInterrupt { Glibc.connect(descriptor, address, socklen_t(length)) }
            }
        }
        guard connected == 0 else {
            let failure = Errno.current
            Glibc.close(descriptor)
            throw error(for: failure, "cannot connect to the bus at \(shown)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return descriptor
    }

    /// SASL `EXTERNAL` with this process's user id, then `BEGIN`: a bus
    /// that knows the user answers `OK` and the server's GUID.
    private func authenticate(before deadline: ContinuousClock.Instant) throws(DBusError) {
        let uid = String(getuid())
        let hex = uid.utf8.map { byte in String(byte, radix: 16) }.joined()
        try send(Array("\0AUTH EXTERNAL \(hex)\r\n".utf8), before: deadline)
        var line: [UInt8] = []
        while !(line.count >= 2 && line[line.count - 2] == UInt8(ascii: "\r") && line[line.count - 1] == UInt8(ascii: "\n")) {
            guard line.count < 512 else { throw DBusError(.authFailed, "the bus's answer to authentication is too long") }
            // One byte at a time: nothing after the line may be taken from the stream.
            var byte: [UInt8] = [0]
            let received = byte.withUnsafeMutableBytes { buffer in
                Result { () throws(DBusError) in try receive(into: buffer, before: deadline) }
            }
            let count = try received.get()
            guard count == 1 else { throw DBusError.disconnected("the bus closed the connection while authenticating") }
            line.append(byte[0])
        }
        guard line.starts(with: Array("OK ".utf8)) else {
            let answer = String(decoding: line.dropLast(2), as: UTF8.self)
            throw DBusError(.authFailed, "the bus refused to authenticate this process's user: \(quoted(answer))")
        }
        try send(Array("BEGIN\r\n".utf8), before: deadline)
    }

    /// Writes all of `bytes`, waiting for room as long as `deadline` allows.
    func send(_ bytes: [UInt8], before deadline: ContinuousClock.Instant) throws(DBusError) {
        var offset = 0
        while true {
            let sent = bytes.withUnsafeBytes { all in
                Result { () throws(DBusError) in try sendNow(UnsafeRawBufferPointer(rebasing: all[offset...])) }
            }
            offset += try sent.get()
            guard offset < bytes.count else { return }
            try wait(for: Int16(POLLOUT), before: deadline)
        }
    }

    /// Writes as much of `bytes` as the socket takes without waiting; how much it took.
    /// - Throws: `Disconnected` for any failure but a full socket.
    func sendNow(_ bytes: UnsafeRawBufferPointer) throws(DBusError) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let written = retryingOnInterrupt { Glibc.send(descriptor.rawValue, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
                continue
            }
            let failure = Errno.current
            guard written < 0, failure == .wouldBlock else { throw Self.closed(failure) }
            break
        }
        return offset
    }

    /// Reads what has come, at most `buffer.count` bytes, waiting for some
    /// as long as `deadline` allows; 0 when the bus closed the connection.
    func receive(into buffer: UnsafeMutableRawBufferPointer, before deadline: ContinuousClock.Instant) throws(DBusError) -> Int {
        while true {
            if let count = try receiveNow(into: buffer) { return count }
            try wait(for: Int16(POLLIN), before: deadline)
        }
    }

    /// Reads what has come without waiting: `nil` when nothing has, 0 when
    /// the bus closed the connection.
    /// - Throws: `Disconnected` for any failure but an empty socket.
    func receiveNow(into buffer: UnsafeMutableRawBufferPointer) throws(DBusError) -> Int? {
        let count = retryingOnInterrupt { Glibc.recv(descriptor.rawValue, buffer.baseAddress, buffer.count, 0) }
        if count >= 0 { return count }
        let failure = Errno.current
        guard failure == .wouldBlock else { throw Self.closed(failure) }
        return nil
    }

    /// Waits until the socket is ready for `events`.
    /// - Throws: `NoReply` when `deadline` passes first.
    func wait(for events: Int16, before deadline: ContinuousClock.Instant) throws(DBusError) {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw DBusError.noReply("no reply arrived within the time limit") }
            var polled = pollfd(fd: descriptor.rawValue, events: events, revents: 0)
            let ready = retryingOnInterrupt { poll(&polled, 1, max(milliseconds(left), 1)) }
            if ready > 0 { return }
            if ready < 0 { throw Self.closed(.current) }
        }
    }

    func close() { _ = Glibc.close(descriptor.rawValue) }

    private static func closed(_ failure: Errno) -> DBusError {
        .disconnected("the bus connection failed: \(failure)")
    }

    /// An error named as libdbus names the errors of its system calls.
    private static func error(for failure: Errno, _ what: String) -> DBusError {
        let name: ErrorName = switch failure.rawValue {
        case ENOENT: .fileNotFound
        case ECONNREFUSED: .noServer
        case EACCES, EPERM: .accessDenied
        case ENFILE, EMFILE: .limitsExceeded
        case ENOMEM, ENOBUFS: .noMemory
        default: .failed
        }
        return DBusError(name, "\(what): \(failure)")
    }
}
