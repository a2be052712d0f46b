import Glibc
import Testing
import TestSupport

@testable import DBus

/// D-Bus addresses as the specification writes them, read as the one-shot
/// client reads them (`BlockingConnection`, which speaks to the bus itself).
@Suite struct BusAddressTests {
    @Test func unixSocketsAreRead() throws {
        #expect(try BusAddress("unix:path=/run/user/1000/bus").sockets == [.path("/run/user/1000/bus")])
        #expect(try BusAddress("unix:abstract=/tmp/dbus-x1,guid=0123").sockets == [.abstract("/tmp/dbus-x1")])
        // Escapes are undone; alternatives this module cannot reach are skipped.
        #expect(try BusAddress("tcp:host=localhost,port=1;unix:path=/tmp/a%20b%2c").sockets == [.path("/tmp/a b,")])
        #expect(try BusAddress("unix:path=/a;unix:abstract=b").sockets == [.path("/a"), .abstract("b")])
    }

    @Test(arguments: ["", "this is not an address", "tcp:host=localhost,port=1", "unix:tmpdir=/tmp", "unix:path", "unix:=x",
                      "unix:path=/a%2", "unix:path=/a%zz", "launchd:env=X"])
    func malformedOrUnreachableAddressesAreRefused(_ address: String) {
        let error = #expect(throws: DBusError.self) { try BusAddress(address) }
        #expect(error?.name == .badAddress)
    }

    /// What connecting fails with, named as libdbus named it (the CLI tells
    /// "openurld is unreachable" by these names).
    @Test func connectFailuresAreNamed() throws {
        let missing = #expect(throws: DBusError.self) { try BlockingConnection(address: "unix:path=/nonexistent/bus", timeout: .seconds(1)) }
        #expect(missing?.name == .fileNotFound)
        #expect(missing?.message.contains("/nonexistent/bus") == true)
        // A socket file nobody listens on.
        let directory = try makeTemporaryDirectory(prefix: "openurld-address")
        let path = directory + "/bus"
        defer {
            unlink(path)
            rmdir(directory)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in for (index, byte) in path.utf8.enumerated() { bytes[index] = byte } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(descriptor)  // bound, never listened on, closed: the file stays, nobody answers
        let refused = #expect(throws: DBusError.self) { try BlockingConnection(address: "unix:path=" + path, timeout: .seconds(1)) }
        #expect(refused?.name == .noServer)
    }
}
