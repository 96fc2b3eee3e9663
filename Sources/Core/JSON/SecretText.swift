/// Finds a secret (the API key, the database password) in text even when it is disguised with invisible Unicode
/// format characters (general category Cf: U+200B zero-width space, U+200C/U+200D joiners, U+2060 word joiner,
/// U+FEFF, U+00AD soft hyphen, bidi controls...): a server that echoes the key as `sk-t\u{200B}est…` shows the key to
/// any reader while a verbatim search misses it. Text is searched with those characters removed (case kept), and
/// the whole disguised span, format characters included, is replaced. Every redaction (log lines, stored rows, model
/// answers, reports, database errors) goes through here.
package enum SecretText {
    /// Invisible characters that may hide a secret.
    package static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0xAD && scalar.properties.generalCategory == .format
    }

    /// `text` without its format characters.
    package static func normalized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isFormat) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.filter { !isFormat($0) })
        return String(scalars)
    }

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

    /// The spans of `scalars` (format characters inside a match included) that read as `secret` once format
    /// characters are removed, in order and not overlapping.
    static func matches(of secret: String, in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        let needle = Array(normalized(secret).unicodeScalars)
        guard let head = needle.first, scalars.count >= needle.count, scalars.contains(head) else { return [] }
        // The visible scalars and where each stands in the text.
        var positions: [Int] = []
        var visible: [Unicode.Scalar] = []
        positions.reserveCapacity(scalars.count)
        visible.reserveCapacity(scalars.count)
        for (index, scalar) in scalars.enumerated() where !isFormat(scalar) {
            positions.append(index)
            visible.append(scalar)
        }
        var found: [Range<Int>] = []
        var start = 0
        while start + needle.count <= visible.count {
            if visible[start] == head, visible[start..<(start + needle.count)].elementsEqual(needle) {
                found.append(positions[start]..<(positions[start + needle.count - 1] + 1))
                start += needle.count
            } else {
                start += 1
            }
        }
        return found
    }
}
