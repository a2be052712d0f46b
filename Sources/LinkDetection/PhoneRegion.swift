/// The region whose numbering plan a text's national phone numbers are
/// written in: with one, `0612345678` read in France is `tel:+33612345678`
/// (the trunk prefix `0` gives way to the country calling code), and
/// `0033 6 12 34 56 78` or, in the United States, `011 44 20 7946 0958`
/// (international prefixes) become `+`. Without one, a national number
/// stays as written (`tel:0612345678`), which dials the same number from
/// the region it was written for.
///
///     LinkDetector(region: PhoneRegion("FR")).links(in: "06 12 34 56 78")  // tel:+33612345678
///
/// Calling codes and prefixes come from `data/phone-regions.tsv`
/// (libphonenumber's metadata; `scripts/update-phone-regions`).
public struct PhoneRegion: Sendable, Hashable {
    /// The ISO 3166-1 alpha-2 code, uppercase (`FR`).
    public let code: String
    /// The country calling code, without `+` (`33`).
    public let callingCode: String
    /// The prefixes dialled before a calling code from this region (`00`;
    /// `011` in North America); empty where they depend on a carrier.
    public let internationalPrefixes: [String]
    /// The prefix national numbers start with and international ones drop
    /// (`0`; `1` in North America; none in Italy, whose numbers keep their `0`).
    public let trunkPrefix: String

    /// The region with ISO 3166-1 alpha-2 `code` (any case); `nil` for a
    /// code no numbering plan is known for.
    public init?(_ code: String) {
        let upper = code.uppercased()
        guard let entry = Self.table[upper] else { return nil }
        self.code = upper
        (callingCode, internationalPrefixes, trunkPrefix) = entry
    }

    /// The region of a POSIX locale name, as `LC_TELEPHONE` or `LANG` hold
    /// it (`fr_FR.UTF-8`, `de_CH@euro`, `pt_BR`); `nil` for `C`, `POSIX` or
    /// a locale without a territory (`en`).
    public init?(locale: String) {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        guard let underscore = name.firstIndex(of: "_") else { return nil }
        let territory = name[name.index(after: underscore)...]
        guard territory.count == 2 else { return nil }
        self.init(String(territory))
    }

    /// The region of the locale that governs telephone numbers in
    /// `environment`: `LC_ALL`, else `LC_TELEPHONE`, else `LANG` (POSIX's
    /// order), the first that is set and not empty.
    public static func ofLocale(in environment: [String: String]) -> PhoneRegion? {
        let name = ["LC_ALL", "LC_TELEPHONE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        return name.flatMap { PhoneRegion(locale: $0) }
    }
}
