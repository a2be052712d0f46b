// libFuzzer target: Exec line parsing and expansion (built by scripts/fuzz).
import XDG

private let entry = DesktopEntry(id: "fuzz.desktop", path: "/x/fuzz.desktop",
    keyFile: try! KeyFile(parsing: "[Desktop Entry]\nType=Application\nName=Fuzz\nIcon=fuzz\n"))!
private let url = "https://e.com/$(id)`x`;|&'\" a"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let line = try? ExecLine(KeyFile.unescape(text)), let argv = try? line.arguments(for: url, entry: entry) else { return 0 }
    // The URL is one argument, exactly once, never split or merged.
    precondition(argv.filter { $0 == url }.count == 1)
    precondition(!argv.isEmpty && !argv[0].isEmpty)
    return 0
}
