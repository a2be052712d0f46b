import CSpawn
import Glibc
import SafeText

/// Why a program could not be started.
public struct SpawnError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The program that was to run.
    public let program: String
    /// The `errno` value, e.g. `ENOENT` when the program does not exist.
    public let code: Int32

    public var description: String {
        "cannot run \(program): \(String(cString: strerror(code)))"
    }
}

/// Where one of a child's standard descriptors goes.
public enum StandardStream: Sendable {
    /// `/dev/null`.
    case null
    /// The same descriptor as this process's.
    case inherit
    /// A descriptor of this process (e.g. the write end of a pipe).
    case descriptor(Int32)
}

/// Starts a program directly (no shell) and returns its PID once `exec` succeeded.
///
/// The program, the arguments and the environment reach `execve` as the
/// bytes `EscapedBytes` says they stand for: a file name that is not UTF-8
/// arrives as its own bytes.
///
/// The child has only descriptors 0–2, an empty signal mask and default
/// signal handlers (this process's threads block many signals; a browser
/// inheriting that could not be stopped), and optionally its own session.
/// The caller must reap it (`waitpid`), or it lingers as a zombie.
///
/// - Parameters:
///   - program: an absolute path to the executable.
///   - arguments: `argv`, including `argv[0]`.
///   - environment: `KEY=value` strings.
///   - newSession: detach from this process's session (`setsid`).
/// - Throws: `SpawnError` with the errno of the failed `exec` or set-up.
public func spawn(
    _ program: String, arguments: [String], environment: [String], stdin: StandardStream = .null,
    stdout: StandardStream = .null, stderr: StandardStream = .null, newSession: Bool = false
) throws(SpawnError) -> pid_t {
    // A NUL would silently cut a C string short: refuse rather than run
    // something else (`CStringBlock` refuses one in an argument or a variable).
    if program.containsByte(0) { throw SpawnError(program: program, code: EINVAL) }
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    guard null >= 0 else { throw SpawnError(program: program, code: errno) }
    defer { close(null) }
    func descriptor(_ stream: StandardStream, _ standard: Int32) -> Int32 {
        switch stream {
        case .null: null
        case .inherit: standard
        case .descriptor(let fd): fd
        }
    }
    guard let argv = CStringBlock(arguments) else { throw SpawnError(program: program, code: EINVAL) }
    defer { argv.deallocate() }
    guard let envp = CStringBlock(environment) else { throw SpawnError(program: program, code: EINVAL) }
    defer { envp.deallocate() }
    var pid: pid_t = 0
    let result = EscapedBytes.withCString(program) { program in
        cspawn(program, argv.pointers, envp.pointers, descriptor(stdin, 0), descriptor(stdout, 1), descriptor(stderr, 2),
               newSession ? 1 : 0, &pid)
    }
    guard result == 0 else { throw SpawnError(program: program, code: result) }
    return pid
}

/// Strings as `execve` takes them: a NULL-terminated array of pointers to
/// NUL-terminated bytes, each string's bytes as `EscapedBytes` says it
/// stands for. All the bytes share one allocation: a launch hands on some
/// forty strings, and a copy of each had cost a `malloc` and a `free`.
private struct CStringBlock {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let bytes: UnsafeMutablePointer<CChar>

    /// `nil` when a string holds a NUL, which would cut it short.
    init?(_ strings: [String]) {
        // An escape stands for one byte in four of UTF-8: no string's bytes outgrow its UTF-8.
        let capacity = strings.reduce(0) { $0 + $1.utf8.count + 1 }
        bytes = .allocate(capacity: max(capacity, 1))
        pointers = .allocate(capacity: strings.count + 1)
        var offset = 0
        for (index, string) in strings.enumerated() {
            let start = bytes + offset
            var string = string
            // Nearly every string has no escape (each begins with 0xF4): its own UTF-8, copied.
            let copied = string.withUTF8 { utf8 -> Int? in
                guard let base = utf8.baseAddress, !utf8.isEmpty else { return 0 }
                guard memchr(base, 0xF4, utf8.count) == nil else { return nil }
                UnsafeMutableRawPointer(start).copyMemory(from: base, byteCount: utf8.count)
                return utf8.count
            }
            let count = copied ?? EscapedBytes.encode(string).withUnsafeBytes { encoded in
                if let base = encoded.baseAddress { UnsafeMutableRawPointer(start).copyMemory(from: base, byteCount: encoded.count) }
                return encoded.count
            }
            guard memchr(start, 0, count) == nil else {
                deallocate()
                return nil
            }
            start[count] = 0
            pointers[index] = start
            offset += count + 1
        }
        pointers[strings.count] = nil
    }

    func deallocate() {
        bytes.deallocate()
        pointers.deallocate()
    }
}

/// This process's arguments, `argv[0]` first, as their bytes say
/// (`EscapedBytes`): `CommandLine.arguments` replaces a byte that is not
/// UTF-8 with U+FFFD, and a path with one would name another file.
public func currentArguments() -> [String] {
    (0..<Int(CommandLine.argc)).map { index in
        CommandLine.unsafeArgv[index].map { EscapedBytes.decode(cString: $0) } ?? ""
    }
}

/// The name a program runs under: the last component of `argv[0]`, as a
/// multi-call binary chooses what to be by it ("" without one).
public func programName(_ arguments: [String]) -> String {
    guard let first = arguments.first else { return "" }
    return first.split(separator: "/").last.map(String.init) ?? first
}

/// This process's environment (`environ`), values as their bytes say
/// (`EscapedBytes`); for a repeated name the first wins, as `getenv` does.
public func currentEnvironment() -> [String: String] {
    var count = 0
    while environ[count] != nil { count += 1 }
    // Sized once: growing the table six times cost as much as filling it.
    var result = [String: String](minimumCapacity: count)
    var pointer = environ
    while let entry = pointer.pointee {
        // Split at the first '=' by bytes: grapheme breaking every variable
        // was a tenth of `openurl`'s start-up.
        if let equals = strchr(entry, Int32(UInt8(ascii: "="))) {
            let key = String(decoding: UnsafeRawBufferPointer(start: entry, count: equals - entry), as: UTF8.self)
            if result[key] == nil { result[key] = EscapedBytes.decode(cString: equals + 1) }
        }
        pointer += 1
    }
    return result
}
