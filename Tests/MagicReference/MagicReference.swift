// The contents rules read as the specification says, rule by rule over the
// parsed tree: the oracle `MimeMagic.match` (which walks the rules laid
// out flat, `MimeMagic.Layout`) is held to, defined once for
// Tests/XDGTests/MimeMagicTests and the fuzz-magic target. It is the
// matcher `MimeMagic` had before the layout, kept here for its plainness.
import XDG

public enum MagicReference {
    /// The first of `magic`'s sections one of whose rules matches `data` (a file's first bytes).
    public static func match(_ magic: MimeMagic, _ data: [UInt8]) -> MimeMagic.Section? {
        let data = data.count > MimeMagic.maximumExtent ? Array(data.prefix(MimeMagic.maximumExtent)) : data
        for section in magic.sections {
            for rule in section.matches where matches(rule, data) { return section }
        }
        return nil
    }

    /// The rule's value is at one of its offsets and, when it has nested rules, one of them matches.
    static func matches(_ rule: MimeMagic.Match, _ data: [UInt8]) -> Bool {
        guard found(rule, data) else { return false }
        if rule.children.isEmpty { return true }
        for child in rule.children where matches(child, data) { return true }
        return false
    }

    /// The value, each byte under its mask, at some offset from `offset` to `offset + range - 1`.
    static func found(_ rule: MimeMagic.Match, _ data: [UInt8]) -> Bool {
        let last = min(rule.offset + rule.range - 1, data.count - rule.value.count)
        guard !rule.value.isEmpty, rule.offset <= last else { return false }
        offsets: for start in rule.offset...last {
            for index in 0..<rule.value.count {
                let mask = rule.mask?[index] ?? 0xFF
                if data[start + index] & mask != rule.value[index] & mask { continue offsets }
            }
            return true
        }
        return false
    }
}
