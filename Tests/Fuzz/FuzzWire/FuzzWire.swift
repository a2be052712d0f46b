// libFuzzer target: the wire format read in Swift against libdbus's
// reading of the same bytes, and what it reads written and read back
// (built by scripts/fuzz).
import DBus
import WireAgreement

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let difference = wireDisagreement(on: bytes) { preconditionFailure(difference) }
    guard let (header, body) = try? WireFormat.decode(bytes) else { return 0 }
    // What was read can be written, and reads back the same.
    guard let again = try? WireFormat.encode(header, body: body) else { preconditionFailure("could not write back '\(header.signature)'") }
    guard let (header2, body2) = try? WireFormat.decode(again) else { preconditionFailure("could not read back what was written") }
    precondition(header2 == header && sameBody(body2, body), "read back differently")
    return 0
}
