import Foundation

/// The API key as a hostile server echoes it in disguise (issue 47 item 3), and a reader that sees through every
/// disguise: the test's own, independent of `SecretText`, so a test cannot pass by sharing the scrubber's blind spot.
enum KeyDisguises {
    /// A key with a distinctive core (its longest run of letters and digits) long enough to be matched on its own.
    static let apiKey = "sk-proj-K3yT3stQ7rT2mXc9LpW4-echo"
    static let core = "k3yt3stq7rt2mxc9lpw4"

    /// Each disguise of `key`, as a server would write it into a reply.
    static func all(_ key: String) -> [String] {
        [
            key.uppercased(),
            key.replacingOccurrences(of: "-", with: #"\u002d"#),
            key.replacingOccurrences(of: "-", with: #"\\u002D"#),
            key.unicodeScalars.map { String(format: "%%%02X", $0.value) }.joined(),
            key.replacingOccurrences(of: "-", with: "%2d"),
            String(String.UnicodeScalarView(key.unicodeScalars.map { Unicode.Scalar($0.value + 0xFEE0)! })),
            String(key.prefix(4)) + "\u{200B}" + String(key.dropFirst(4)),
            key.replacingOccurrences(of: "-", with: "&#x2d;"),
            key.replacingOccurrences(of: "-", with: "\u{2011}"),
            key.replacingOccurrences(of: "-", with: "_"),
        ]
    }

    /// Every disguise, space-separated: one field that carries them all.
    static func echo(_ key: String) -> String { all(key).joined(separator: " ") }

    /// The key with its dashes as JSON escapes, to be put into JSON text raw: parsed, it is the key itself.
    static func jsonEscaped(_ key: String) -> String { key.replacingOccurrences(of: "-", with: #"\u002d"#) }

    /// `text` as a reader who undoes every disguise sees it: escapes decoded (JSON behind any backslashes, percent,
    /// HTML), compatibility forms and case folded, invisible characters and separators removed.
    static func revealed(_ text: String) -> String {
        var text = text
        text = replacing(#"\\+[uU]([0-9a-fA-F]{4})"#, in: text) { hex in UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init).map(String.init) }
        text = replacing(#"&#[xX]([0-9a-fA-F]+);"#, in: text) { hex in UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init).map(String.init) }
        text = replacing(#"((?:%[0-9a-fA-F]{2})+)"#, in: text) { $0.removingPercentEncoding }
        text = text.precomposedStringWithCompatibilityMapping.lowercased()
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }))
    }

    /// Where `text` still holds the key in any disguise: nil when clean, else an excerpt of the revealed text.
    static func leak(in text: String) -> String? {
        let revealed = revealed(text)
        guard let range = revealed.range(of: core) else { return nil }
        let start = revealed.index(range.lowerBound, offsetBy: -60, limitedBy: revealed.startIndex) ?? revealed.startIndex
        let end = revealed.index(range.upperBound, offsetBy: 60, limitedBy: revealed.endIndex) ?? revealed.endIndex
        return String(revealed[start..<end])
    }

    private static func replacing(_ pattern: String, in text: String, _ transform: (String) -> String?) -> String {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return text }
        let result = NSMutableString(string: text)
        for match in regex.matches(in: text, range: NSRange(location: 0, length: result.length)).reversed() {
            guard let replacement = transform(result.substring(with: match.range(at: 1))) else { continue }
            result.replaceCharacters(in: match.range, with: replacement)
        }
        return result as String
    }
}
