import DBus
import Routing

extension DispatcherAPI {
    /// A method's arguments and results, as exported and as called.
    public struct Signature: Sendable {
        /// The arguments, in order.
        public let arguments: [Argument]
        /// The results, in order.
        public let results: [Argument]

        init(_ arguments: [Argument], _ results: [Argument] = []) {
            self.arguments = arguments
            self.results = results
        }
    }

    /// `a{sv}`: options, specs, results and entries.
    public static let dictionary = DBusType.dictionary(key: .string, value: .variant)

    /// The members of `org.openurld.Dispatcher1` (docs/org.openurld.Dispatcher1.xml), spelled once.
    public enum Signatures {
        /// `OpenURL`.
        public static let openURL = Signature([Argument("url", .string)], [Argument("accepted", .boolean)])
        /// `OpenURLWithOptions`.
        public static let openURLWithOptions = Signature(
            [Argument("url", .string), Argument("options", dictionary)], [Argument("accepted", .boolean), Argument("result", dictionary)])
        /// `RegisterHandler`.
        public static let registerHandler = Signature([Argument("path", .objectPath), Argument("spec", dictionary)], [Argument("id", .uint32)])
        /// `UnregisterHandler`.
        public static let unregisterHandler = Signature([Argument("id", .uint32)])
        /// `ListHandlers`.
        public static let listHandlers = Signature([], [Argument("handlers", .array(dictionary))])
        /// `Explain`.
        public static let explain = Signature([Argument("url", .string)], [Argument("handlers", .array(dictionary)), Argument("application", .string)])
        /// `ListRules`.
        public static let listRules = Signature([], [Argument("rules", .array(dictionary)), Argument("problems", .array(.string))])
        /// `DetectLinks`.
        public static let detectLinks = Signature([Argument("text", .string), Argument("options", dictionary)], [Argument("links", .array(DetectedLink.type))])
        /// `org.openurld.Chooser1.Choose`, which every chooser exports.
        public static let choose = Signature(
            [Argument("url", .string), Argument("targets", .array(dictionary)), Argument("options", dictionary)],
            [Argument("response", .uint32), Argument("results", dictionary)])
        /// `org.openurld.Handler1.HandleURL`, which handlers export.
        public static let handleURL = Signature([Argument("url", .string), Argument("context", dictionary)], [Argument("result", .string), Argument("url", .string)])
        /// `org.freedesktop.Application`'s members, which the dispatcher serves and the launcher calls.
        public static let activate = Signature([Argument("platform_data", dictionary)])
        /// `Application.Open(as uris, a{sv} platform_data)`.
        public static let open = Signature([Argument("uris", .array(.string)), Argument("platform_data", dictionary)])
        /// `Application.ActivateAction(s action_name, av parameter, a{sv} platform_data)`.
        public static let activateAction = Signature(
            [Argument("action_name", .string), Argument("parameter", .array(.variant)), Argument("platform_data", dictionary)])
    }

    /// `org.freedesktop.Application`'s member names.
    public enum ApplicationMember {
        /// `Activate`.
        public static let activate: MemberName = "Activate"
        /// `Open`.
        public static let open: MemberName = "Open"
        /// `ActivateAction`.
        public static let activateAction: MemberName = "ActivateAction"
    }

    /// The `Version` property of `org.openurld.Dispatcher1`.
    public static let versionProperty: MemberName = "Version"
}
