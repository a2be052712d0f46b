/// The writing system a letter belongs to, as far as telling hosts apart
/// needs: by code-point block, which is coarse but never calls a letter of one
/// script another script's. Swift's standard library has no Script property.
public enum Script: String, Hashable, Sendable, CaseIterable {
    case latin = "Latin", greek = "Greek", cyrillic = "Cyrillic", armenian = "Armenian", hebrew = "Hebrew", arabic = "Arabic"
    case devanagari = "Devanagari", bengali = "Bengali", gurmukhi = "Gurmukhi", gujarati = "Gujarati", oriya = "Oriya"
    case tamil = "Tamil", telugu = "Telugu", kannada = "Kannada", malayalam = "Malayalam", sinhala = "Sinhala"
    case thai = "Thai", lao = "Lao", tibetan = "Tibetan", myanmar = "Myanmar", georgian = "Georgian", hangul = "Hangul"
    case ethiopic = "Ethiopic", khmer = "Khmer", hiragana = "Hiragana", katakana = "Katakana", bopomofo = "Bopomofo", han = "Han"

    /// What a scalar is to a host's display.
    public enum Class: Equatable, Sendable {
        /// A letter (or a sign of its script) of `Script`.
        case letter(Script)
        /// Digits, the hyphen, and the marks shared by Japanese scripts: any script may have them.
        case common
        /// A combining mark, which takes the script of the letter before it.
        case inherited
        /// Anything a host is not shown with: symbols, scripts no registry
        /// uses for names, invisible characters, unassigned code points.
        case unusual
    }

    /// Classifies `scalar` by its block.
    public static func classify(_ scalar: Unicode.Scalar) -> Class {
        let value = scalar.value
        switch value {
        case 0x30...0x39, 0x2D, 0x30FC, 0x3005, 0x3006: return .common
        case 0x61...0x7A, 0x41...0x5A: return .letter(.latin)
        case 0xD7, 0xF7: return .unusual
        case 0xC0...0x24F, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F: return .letter(.latin)
        case 0x300...0x36F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: return .inherited
        case 0x370...0x3FF, 0x1F00...0x1FFF: return .letter(.greek)
        case 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: return .letter(.cyrillic)
        case 0x531...0x58F: return .letter(.armenian)
        case 0x591...0x5FF: return .letter(.hebrew)
        case 0x600...0x6FF, 0x750...0x77F, 0x8A0...0x8FF: return .letter(.arabic)
        case 0x900...0x97F: return .letter(.devanagari)
        case 0x980...0x9FF: return .letter(.bengali)
        case 0xA00...0xA7F: return .letter(.gurmukhi)
        case 0xA80...0xAFF: return .letter(.gujarati)
        case 0xB00...0xB7F: return .letter(.oriya)
        case 0xB80...0xBFF: return .letter(.tamil)
        case 0xC00...0xC7F: return .letter(.telugu)
        case 0xC80...0xCFF: return .letter(.kannada)
        case 0xD00...0xD7F: return .letter(.malayalam)
        case 0xD80...0xDFF: return .letter(.sinhala)
        case 0xE00...0xE7F: return .letter(.thai)
        case 0xE80...0xEFF: return .letter(.lao)
        case 0xF00...0xFFF: return .letter(.tibetan)
        case 0x1000...0x109F: return .letter(.myanmar)
        case 0x10A0...0x10FF, 0x1C90...0x1CBF, 0x2D00...0x2D2F: return .letter(.georgian)
        case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: return .letter(.hangul)
        case 0x1200...0x139F, 0x2D80...0x2DDF: return .letter(.ethiopic)
        case 0x1780...0x17FF: return .letter(.khmer)
        case 0x3041...0x309F: return .letter(.hiragana)
        case 0x30A0...0x30FF, 0x31F0...0x31FF: return .letter(.katakana)
        case 0x3105...0x312F, 0x31A0...0x31BF: return .letter(.bopomofo)
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3134F: return .letter(.han)
        default: return .unusual
        }
    }
}
