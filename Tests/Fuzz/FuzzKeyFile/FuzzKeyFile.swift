// libFuzzer target: keyfiles, mimeapps.list, desktop entries and the
// mimeapps.list editor (built by scripts/fuzz).
import XDG

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let file = try? KeyFile(parsing: text) else { return 0 }
    _ = MimeAppsList(file, isDesktopSpecific: false, scope: 0)
    if let entry = DesktopEntry(id: "fuzz.desktop", keyFile: file), let exec = entry.exec { _ = try? ExecLine(exec) }
    for group in file.groups { for entry in group.entries { _ = KeyFile.list(entry.value) } }
    // The editor keeps the file parseable and does what it says.
    guard var editor = try? MimeAppsEditor(text) else { preconditionFailure("parsed by KeyFile but refused by the editor") }
    editor.makeDefault("org.openurld.Dispatcher1.desktop", for: "x-scheme-handler/https", previous: "b.desktop")
    precondition((try? KeyFile(parsing: editor.text)) != nil, "makeDefault broke the file")
    precondition(editor.defaults(for: "x-scheme-handler/https")?.first == "org.openurld.Dispatcher1.desktop")
    editor.removeDefault("org.openurld.Dispatcher1.desktop", for: "x-scheme-handler/https")
    precondition((try? KeyFile(parsing: editor.text)) != nil, "removeDefault broke the file")
    precondition(editor.defaults(for: "x-scheme-handler/https")?.contains("org.openurld.Dispatcher1.desktop") != true)
    return 0
}
