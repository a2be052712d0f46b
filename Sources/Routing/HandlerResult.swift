/// What a handler answers, exactly as `HandleURL` puts it on the wire and
/// as rule files write it (`Result=`): the words of `OpenURLAction.Result`.
/// Defined here, in the pure core, so that the rule language, the daemon and
/// every client spell them from one place.
public enum HandlerResult: String, Sendable, CaseIterable {
    case handled
    case discarded
    case systemAction
}
