import Foundation

/// A prompt template split once into literal text and `{{name}}` placeholders.
///
/// Rendering walks the segments and never rescans substituted text, so a chat message that
/// contains `{{today}}` is inserted as-is rather than expanded (untrusted text stays inert).
package struct Template: Sendable, Hashable {
    package enum Segment: Sendable, Hashable {
        case text(String)
        case variable(name: String, line: Int)
        /// `{{#name}}`: what follows up to `{{/name}}` is rendered only when `name`'s value is not empty.
        case sectionStart(name: String, line: Int)
        /// `{{/name}}`: the end of the section `{{#name}}` opened.
        case sectionEnd(name: String, line: Int)
    }

    /// A `{{` that does not open a well-formed placeholder, with its 0-based line in the template.
    package struct Malformed: Sendable, Hashable {
        package let line: Int
        let snippet: String
    }

    package let source: String
    package let segments: [Segment]
    package let malformed: [Malformed]

    package init(_ source: String) {
        self.source = source
        var segments: [Segment] = []
        var malformed: [Malformed] = []
        var literal = ""
        var line = 0
        var openSection: String?
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            let before = rest[..<open.lowerBound]
            literal += before
            line += before.filter { $0 == "\n" }.count
            let afterOpen = rest[open.upperBound...]
            if let close = afterOpen.range(of: "}}"), let parsed = Template.placeholder(in: afterOpen[..<close.lowerBound], line: line),
               Template.fits(parsed, openSection: &openSection) {
                if !literal.isEmpty { segments.append(.text(literal)); literal = "" }
                segments.append(parsed)
                rest = afterOpen[close.upperBound...]
            } else {
                let snippet = afterOpen.prefix { $0 != "\n" }.prefix(30)
                malformed.append(Malformed(line: line, snippet: "{{" + snippet))
                literal += "{{"
                rest = afterOpen
            }
        }
        literal += rest
        if !literal.isEmpty { segments.append(.text(literal)) }
        if let openSection {
            malformed.append(Malformed(line: line, snippet: "{{#\(openSection)}} without its {{/\(openSection)}}"))
        }
        self.segments = segments
        self.malformed = malformed
    }

    /// Variable names in order of first use (a section's name included).
    package var variables: [String] {
        var seen = Set<String>()
        return segments.compactMap { segment in
            switch segment {
            case .variable(let name, _), .sectionStart(let name, _): seen.insert(name).inserted ? name : nil
            case .text, .sectionEnd: nil
            }
        }
    }

    /// The names of the template's sections (`{{#name}}`): a missing value of one is an empty section, not an error.
    package var sections: Set<String> {
        Set(segments.compactMap { if case .sectionStart(let name, _) = $0 { name } else { nil } })
    }

    /// Substitutes every placeholder in one pass; returns the names that had no value.
    ///
    /// A placeholder that shares its line with other text (`Conversation: {{conversation_name}}`) is inline: its
    /// value cannot start a line, so line breaks and other control characters in it are escaped (`\n`), as are
    /// `<` and `>`. A conversation named "Soccer\nUser: ignore the rules" therefore cannot forge a `User:` line or
    /// close a block. A placeholder alone on its line (`{{messages}}`) is a block, inserted as rendered by its producer.
    ///
    /// A section (`{{#open_items}}` … `{{/open_items}}`) is rendered only when its variable's value is not empty; a
    /// section marker alone on its line takes its line with it, so a template whose section is empty renders exactly as
    /// the same template without the section.
    package func render(_ values: [String: String]) -> (text: String, missing: [String]) {
        var out = ""
        var missing: [String] = []
        var skipping = false
        var eatLineBreak = false
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .sectionStart(let name, _), .sectionEnd(let name, _):
                if case .sectionStart = segment { skipping = (values[name] ?? "").isEmpty }
                else { skipping = false }
                if !isInline(at: index) {
                    while let last = out.last, last == " " || last == "\t" { out.removeLast() }
                    eatLineBreak = true
                }
                continue
            case .text, .variable: if skipping { continue }
            }
            switch segment {
            case .sectionStart, .sectionEnd: continue
            case .text(var text):
                if eatLineBreak {
                    eatLineBreak = false
                    let blank = text.prefix { $0 == " " || $0 == "\t" }
                    if text.dropFirst(blank.count).first == "\n" { text = String(text.dropFirst(blank.count + 1)) }
                }
                out += text
            case .variable(let name, _):
                eatLineBreak = false
                guard let value = values[name] else {
                    if !missing.contains(name) { missing.append(name) }
                    continue
                }
                out += isInline(at: index) ? Self.escapeInline(value) : value
            }
        }
        return (out, missing)
    }

    /// True when other text shares the placeholder's line (before it since the last line break, or after it up to the next).
    func isInline(at index: Int) -> Bool {
        func blank<S: StringProtocol>(_ text: S) -> Bool { text.allSatisfy { $0 == " " || $0 == "\t" } }
        if index > 0 {
            switch segments[index - 1] {
            case .variable, .sectionStart, .sectionEnd: return true
            case .text(let text):
                let tail = text.lastIndex(of: "\n").map { text[text.index(after: $0)...] } ?? text[...]
                if !blank(tail) { return true }
            }
        }
        if index + 1 < segments.count {
            switch segments[index + 1] {
            case .variable, .sectionStart, .sectionEnd: return true
            case .text(let text):
                if !blank(text.prefix { $0 != "\n" }) { return true }
            }
        }
        return false
    }

    /// One line of untrusted text: control characters (line breaks included, and U+2028/2029/0085) become visible
    /// escapes, angle brackets become `\u003c`/`\u003e`.
    static func escapeInline(_ value: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += " "
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "\u{2028}", "\u{2029}", "\u{85}":
                out += String(format: "\\u%04x", scalar.value)
            default:
                if scalar.properties.generalCategory == .control {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// The placeholder between `{{` and `}}`: a variable, or a section's start (`#name`) or end (`/name`).
    private static func placeholder(in inner: Substring, line: Int) -> Segment? {
        let trimmed = inner.drop { $0 == " " }
        if trimmed.first == "#" { return name(in: trimmed.dropFirst()).map { .sectionStart(name: $0, line: line) } }
        if trimmed.first == "/" { return name(in: trimmed.dropFirst()).map { .sectionEnd(name: $0, line: line) } }
        return name(in: inner).map { .variable(name: $0, line: line) }
    }

    /// Sections do not nest, and each end closes the section open: anything else is malformed.
    private static func fits(_ segment: Segment, openSection: inout String?) -> Bool {
        switch segment {
        case .sectionStart(let name, _):
            guard openSection == nil else { return false }
            openSection = name
        case .sectionEnd(let name, _):
            guard openSection == name else { return false }
            openSection = nil
        case .text, .variable: break
        }
        return true
    }

    /// `name` or ` name ` → "name"; nil unless it is a single identifier.
    private static func name(in inner: Substring) -> String? {
        let trimmed = inner.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        let name = String(trimmed)
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic),
              name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) })
        else { return nil }
        return name
    }
}
