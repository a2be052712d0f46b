import DBus
import DispatcherAPI
import Rules

extension Rule {
    /// The `a{sv}` entry `ListRules` returns (`Explain` adds to it).
    var dbusDescription: Value { descriptionEntries.dbusValue }

    var descriptionEntries: [String: Variant] { DispatcherAPI.RuleInfo(self).listing }
}
