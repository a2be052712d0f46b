import Routing
import SafeText
import XDG

/// A URL the launch gate let through: the only thing `Launcher` opens.
///
/// Its initializer is private to this file, so every path to an application
/// (the fallback, `Open=`, `Exec=`, a chosen or remembered target, an edited
/// address, a handler's rewrite, a file by its type) has passed `LaunchGate`.
public struct AdmittedURL: Sendable, Equatable {
    /// The URL to launch.
    public let url: ValidatedURL
    /// For a `file:` URL, the file and its type.
    public let file: LocalFile?

    fileprivate init(url: ValidatedURL, file: LocalFile?) {
        self.url = url
        self.file = file
    }
}

/// The one check before anything is launched with a URL.
public enum LaunchGate {
    /// Why a URL is not launched.
    public struct Refusal: Error, Equatable, Sendable {
        /// Why, for people.
        public let reason: String
    }

    /// Why `url` is refused from the URL alone (its scheme), before any
    /// file is looked at; `nil` when `admit` has more to check.
    public static func refusal(of url: ValidatedURL) -> String? { RefusedScheme(url.scheme)?.reason }

    /// Lets `url` through, or says why not: a refused scheme; a `file:` URL
    /// of another host, of a missing file, or of a type that can run
    /// (`RunnableTypes`, through the database's aliases and parent types),
    /// by its name or by its contents.
    public static func admit(_ url: ValidatedURL, mime: @autoclosure () -> MimeDatabase) throws(Refusal) -> AdmittedURL {
        if let reason = refusal(of: url) { throw Refusal(reason: reason) }
        guard url.scheme == "file" else { return AdmittedURL(url: url, file: nil) }
        let mime = mime()
        let file: LocalFile
        do { file = try LocalFile(url, mime: mime) } catch { throw Refusal(reason: error.reason) }
        let globs = mime.globs
        if let root = globs.runnableRoot(of: file.mimeType) {
            let kind = root == globs.canonical(file.mimeType) ? file.mimeType : "\(file.mimeType), a kind of \(root)"
            throw Refusal(reason: "\(displayable(file.path)) is \(kind), which opening could run; openurld never opens such files")
        }
        if let runnable = file.runnableContents {
            throw Refusal(reason: "\(displayable(file.path)) has the contents of \(runnable), which opening could run, whatever its name says; openurld never opens such files")
        }
        return AdmittedURL(url: url, file: file)
    }
}
