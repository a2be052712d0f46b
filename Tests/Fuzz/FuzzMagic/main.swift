// libFuzzer target: the contents rules (`mime/magic`) and the typing that
// uses them (built by scripts/fuzz). The input is read both as a magic
// file and as a file's first bytes matched against it; the match must be
// the one the rules read plainly over their tree give (`MagicReference`).
import MagicReference
import XDG

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMagic(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let header = Array("MIME-Magic\0\n".utf8)
    let magic = MimeMagic(directories: [header + bytes, bytes])
    precondition(magic.extent >= 0 && magic.extent <= MimeMagic.maximumExtent, "extent out of bounds")
    for data in [bytes, Array(bytes.dropFirst(bytes.count / 2))] {
        precondition(magic.match(data) == MagicReference.match(magic, data), "the laid-out rules and the tree disagree")
    }
    _ = MimeMagic.looksLikeText(bytes)
    let typing = FileTyping(name: "fuzz.ts", globs: MimeGlobs(directories: []), magic: magic) { count in
        precondition(count <= MimeMagic.maximumExtent, "asked for more than the bound")
        return Array(bytes.prefix(count))
    }
    precondition(!typing.type.isEmpty, "a file with no type")
    return 0
}
