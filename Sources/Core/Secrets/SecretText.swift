import Foundation

/// The one scrubber of secrets (the API key, the database password): every redaction (log lines, stored rows, model
/// answers, reports, caches, database errors) goes through here, so a disguise it sees through is seen through in
/// every sink. A secret is found however a reader would still recognise it:
/// - invisible format characters (general category Cf: U+200B zero-width space, joiners, U+2060, U+FEFF, U+00AD,
///   bidi controls) are skipped;
/// - escapes are read as what they stand for: JSON `\u002d` (behind any number of backslashes, as in JSON text
///   nested in a JSON string), percent `%2D` (also UTF-8 sequences such as `%EF%BC%8D`) and HTML `&#45;` / `&#x2d;`;
/// - characters are compared after Unicode compatibility normalisation (NFKC: full-width `ｓｋ－` reads `sk-`) and
///   case folding (an upper-cased echo is the key to anyone who lower-cases it back);
/// - a long secret's distinctive core, its longest run of letters and digits, is a match on its own, so an echo
///   that swaps the separators (`sk_proj_…`, a Unicode hyphen) still loses the part that matters.
/// The whole disguised span (escapes and format characters included) is replaced.
package enum SecretText {
    /// Invisible characters that may hide a secret.
    static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0xAD && scalar.properties.generalCategory == .format
    }

    /// `text` without its format characters.
    package static func normalized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isFormat) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.filter { !isFormat($0) })
        return String(scalars)
    }

    /// Shortest core searched for on its own: shorter runs of letters and digits could be ordinary words.
    static let minimumCore = 12

    /// Whether `text` holds `secret`, verbatim or disguised.
    package static func contains(_ secret: String, in text: String) -> Bool {
        !matches(of: secret, in: Array(text.unicodeScalars)).isEmpty
    }

    /// `text` with every occurrence of `secret`, verbatim or disguised, replaced by `replacement`.
    package static func replacing(_ secret: String, in text: String, with replacement: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let found = matches(of: secret, in: scalars)
        guard !found.isEmpty else { return text }
        var output = String.UnicodeScalarView()
        var copied = 0
        for range in found {
            output.append(contentsOf: scalars[copied..<range.lowerBound])
            output.append(contentsOf: replacement.unicodeScalars)
            copied = range.upperBound
        }
        output.append(contentsOf: scalars[copied...])
        return String(output)
    }

    /// The spans of `scalars` that read as `secret` or its core (see the type's comment), in order, not overlapping.
    static func matches(of secret: String, in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        let needle = Folded(Array(secret.unicodeScalars)).scalars
        guard !needle.isEmpty, !scalars.isEmpty else { return [] }
        let text = Folded(scalars)
        var found = text.spans(of: needle)
        if let core = core(of: needle) {
            found += text.spans(of: core)
        }
        // Merged in text order: a core inside a span already found adds nothing.
        var merged: [Range<Int>] = []
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// The longest run of ASCII letters and digits of a folded secret, when it is long enough to be distinctive and
    /// is not the whole secret.
    static func core(of needle: [Unicode.Scalar]) -> [Unicode.Scalar]? {
        var best: ArraySlice<Unicode.Scalar> = []
        var start = 0
        for index in 0...needle.count {
            if index < needle.count, needle[index].isASCII, needle[index].properties.isAlphabetic || ("0"..."9").contains(needle[index]) {
                continue
            }
            if index - start > best.count { best = needle[start..<index] }
            start = index + 1
        }
        guard best.count >= minimumCore, best.count < needle.count else { return nil }
        return Array(best)
    }

    /// Text as a reader sees it: format characters dropped, escapes decoded, NFKC and lower case; each folded scalar
    /// remembers the span of original scalars it came from.
    struct Folded {
        var scalars: [Unicode.Scalar] = []
        var origins: [Range<Int>] = []

        init(_ original: [Unicode.Scalar]) {
            scalars.reserveCapacity(original.count)
            origins.reserveCapacity(original.count)
            var index = 0
            while index < original.count {
                if original[index] == "\\" {
                    // A run of backslashes is read once: an escape after it, or the backslashes themselves.
                    var end = index
                    while end < original.count, original[end] == "\\" { end += 1 }
                    if let decoded = Self.unicodeEscape(original, at: end) {
                        append(decoded, from: index..<(end + 5))
                        index = end + 5
                    } else {
                        for backslash in index..<end { append("\\", from: backslash..<(backslash + 1)) }
                        index = end
                    }
                    continue
                }
                let (decoded, end) = Self.unescape(original, at: index)
                append(decoded, from: index..<end)
                index = end
            }
        }

        private mutating func append(_ scalar: Unicode.Scalar, from span: Range<Int>) {
            if scalar.isASCII {
                let value = scalar.value
                scalars.append((0x41...0x5A).contains(value) ? Unicode.Scalar(value + 0x20)! : scalar)
                origins.append(span)
                return
            }
            if isFormat(scalar) { return }
            for folded in String(scalar).precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars where !isFormat(folded) {
                scalars.append(folded)
                origins.append(span)
            }
        }

        /// `uXXXX` at `index` (after a backslash run), as the scalar it stands for.
        static func unicodeEscape(_ text: [Unicode.Scalar], at index: Int) -> Unicode.Scalar? {
            guard index < text.count, text[index] == "u" || text[index] == "U", let value = hex(text, from: index + 1, count: 4) else { return nil }
            return Unicode.Scalar(value)
        }

        /// The scalar a percent or HTML escape at `index` stands for and where the escape ends, or the scalar itself.
        static func unescape(_ text: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int) {
            let scalar = text[index]
            switch scalar {
            case "%":
                if let (decoded, end) = percentDecoded(text, at: index) { return (decoded, end) }
            case "&":
                if let (decoded, end) = entity(text, at: index) { return (decoded, end) }
            default:
                break
            }
            return (scalar, index + 1)
        }

        /// `%XX`, or a UTF-8 sequence of them (`%EF%BC%8D`), as one scalar.
        static func percentDecoded(_ text: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
            guard let lead = percentByte(text, at: index) else { return nil }
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
            guard length > 0 else { return nil }
            var bytes = [lead]
            for part in 1..<length {
                guard let byte = percentByte(text, at: index + 3 * part) else { return nil }
                bytes.append(byte)
            }
            guard let decoded = String(validating: bytes, as: UTF8.self)?.unicodeScalars.first else { return nil }
            return (decoded, index + 3 * length)
        }

        static func percentByte(_ text: [Unicode.Scalar], at index: Int) -> UInt8? {
            guard index < text.count, text[index] == "%", let value = hex(text, from: index + 1, count: 2) else { return nil }
            return UInt8(value)
        }

        /// `&#45;` or `&#x2d;`.
        static func entity(_ text: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
            guard index + 3 < text.count, text[index + 1] == "#" else { return nil }
            let isHex = text[index + 2] == "x" || text[index + 2] == "X"
            var end = index + (isHex ? 3 : 2)
            var value: UInt32 = 0
            var digits = 0
            while end < text.count, digits < 7, text[end].isASCII, let digit = Character(text[end]).hexDigitValue, isHex || digit < 10 {
                value = value * (isHex ? 16 : 10) + UInt32(digit)
                digits += 1
                end += 1
            }
            guard digits > 0, end < text.count, text[end] == ";", let decoded = Unicode.Scalar(value) else { return nil }
            return (decoded, end + 1)
        }

        static func hex(_ text: [Unicode.Scalar], from start: Int, count: Int) -> UInt32? {
            guard start + count <= text.count else { return nil }
            var value: UInt32 = 0
            for scalar in text[start..<(start + count)] {
                guard scalar.isASCII, let digit = Character(scalar).hexDigitValue else { return nil }
                value = value * 16 + UInt32(digit)
            }
            return value
        }

        /// The original spans that read as `needle`, in order and not overlapping.
        func spans(of needle: [Unicode.Scalar]) -> [Range<Int>] {
            guard let head = needle.first, scalars.count >= needle.count else { return [] }
            var found: [Range<Int>] = []
            var start = 0
            while start + needle.count <= scalars.count {
                if scalars[start] == head, scalars[start..<(start + needle.count)].elementsEqual(needle) {
                    let span = origins[start].lowerBound..<origins[start + needle.count - 1].upperBound
                    if span.lowerBound >= (found.last?.upperBound ?? 0) { found.append(span) }
                    start += needle.count
                } else {
                    start += 1
                }
            }
            return found
        }
    }
}
