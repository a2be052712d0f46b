import Testing

@testable import SafeText

/// `String.containsByte` reads eight bytes at a time; it must answer as a
/// byte-by-byte search does, for every byte value, at every position of
/// every length around the word size, next to every other value.
@Suite struct ByteSearchTests {
    @Test func wordsAtATimeFindWhatByteByByteFinds() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for length in 0...33 {
            for _ in 0..<40 {
                let bytes = (0..<length).map { _ in next() }
                bytes.withUnsafeBufferPointer { buffer in
                    for target in 0...255 {
                        let byte = UInt8(target)
                        #expect(hasByte(byte, in: buffer) == bytes.contains(byte), "\(byte) in \(bytes)")
                    }
                }
            }
        }
        // Neighbours that borrow: 0x01 and 0x80 around the byte, in one word.
        for target in [UInt8(0), 1, 0x7F, 0x80, 0xFF] {
            for position in 0..<16 {
                var bytes = [UInt8](repeating: target &+ 1, count: 16)
                bytes[position] = target
                bytes.withUnsafeBufferPointer { #expect(hasByte(target, in: $0)) }
                bytes[position] = target &- 1
                bytes.withUnsafeBufferPointer { #expect(!hasByte(target, in: $0), "\(target) at \(position)") }
            }
        }
        #expect("/usr/share/applications/caf\u{10FFE9}.desktop".containsByte(0xF4))
        #expect(!"/usr/share/applications/firefox.desktop".containsByte(0xF4))
    }
}
