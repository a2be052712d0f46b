/// MIME types whose files can run when they are opened, and how a type is
/// found to be one: by its canonical name, its aliases and its whole chain of
/// parent types in the shared MIME database (GLib's "can be executable" asks
/// the same of `application/x-executable`; its second root, `text/plain`,
/// would refuse every text file and is not used).
public enum RunnableTypes {
    /// The roots, each with where it comes from. A type is runnable when it,
    /// or any type it is a subclass of, is one of these (after aliases).
    public static let roots: [(type: String, source: String)] = [
        ("application/x-executable", "shared-mime-info: ELF programs, and the parent of every script type (x-shellscript, x-csh, x-perl, x-ruby, text/x-python, text/x-lua, x-awk, ecmascript, AppImages)"),
        ("application/x-pie-executable", "shared-mime-info 2.x: position-independent ELF programs"),
        ("application/x-sharedlib", "shared-mime-info: ELF shared objects, as which older databases type PIE programs"),
        ("application/x-shellscript", "shared-mime-info: shell scripts (also under x-executable; listed for databases without the parent)"),
        ("application/vnd.appimage", "shared-mime-info 2.x: type 2 AppImages (`*.AppImage`)"),
        ("application/x-iso9660-appimage", "shared-mime-info: type 1 AppImages"),
        ("application/x-appimage", "older name for AppImages, kept for older databases"),
        ("application/x-desktop", "desktop entries: opening one runs its Exec line"),
        ("application/x-ms-dos-executable", "Windows programs, run by Wine's handler"),
        ("application/x-msdownload", "Windows programs and libraries (another database name)"),
        ("application/x-msi", "Windows installers, run by Wine's handler"),
        ("application/x-java-archive", "Java archives, run by `java -jar` handlers (and Android packages, its subclass)"),
        ("application/x-java-jnlp-file", "Java Web Start: fetches and runs code"),
        ("application/x-python-bytecode", "compiled Python (`*.pyc`), run by python's handler"),
        ("text/x-python", "Python scripts (also under x-executable)"),
        ("application/x-perl", "Perl scripts (also under x-executable)"),
        ("application/x-ruby", "Ruby scripts (also under x-executable)"),
        ("application/x-php", "PHP scripts: the database gives them text/plain only"),
        ("text/tcl", "Tcl scripts: the database gives them text/plain only"),
    ]
}

extension MimeGlobs {
    /// The root of `RunnableTypes` that makes `type` runnable, or `nil`.
    ///
    ///     globs.runnableRoot(of: "application/x-csh")  // "application/x-executable"
    public func runnableRoot(of type: String) -> String? {
        let roots = RunnableTypes.roots.map { canonical($0.type) }
        return lineage(of: type).first { roots.contains($0) }
    }
}
