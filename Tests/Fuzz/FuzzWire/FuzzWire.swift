// libFuzzer target: the wire format read in Swift against libdbus's
// reading of the same bytes, and what it reads written and read back
// (built by scripts/fuzz). Each input is also read with the names and
// signatures the inputs before it left (`RecentNames`), as a connection
// reads a message after the ones before it: the verdict and the header
// must be the same as without them.
@testable import DBus
import WireAgreement

/// One connection's recent names and signatures, kept across inputs.
nonisolated(unsafe) var recent = RecentNames()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let difference = wireDisagreement(on: bytes) { preconditionFailure(difference) }
    var none = RecentNames.none
    let fresh = Result { () throws(DBusError) in try WireFormat.decodeHeader(bytes, recent: &none) }
    let remembered = Result { () throws(DBusError) in try WireFormat.decodeHeader(bytes, recent: &recent) }
    switch (fresh, remembered) {
    case (.failure, .failure): break
    case (.success(let a), .success(let b)):
        precondition(a.header == b.header && a.bodyOffset == b.bodyOffset, "read differently with the recent names: \(a) against \(b)")
    default:
        preconditionFailure("a different verdict with the recent names: \(fresh) against \(remembered)")
    }
    guard let (header, body) = try? WireFormat.decode(bytes) else { return 0 }
    // What was read can be written, and reads back the same.
    guard let again = try? WireFormat.encode(header, body: body) else { preconditionFailure("could not write back '\(header.signature)'") }
    guard let (header2, body2) = try? WireFormat.decode(again) else { preconditionFailure("could not read back what was written") }
    precondition(header2 == header && sameBody(body2, body), "read back differently")
    return 0
}
