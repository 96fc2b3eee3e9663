import Foundation

/// One step into a JSON value: an object key or an array index.
package enum JSONPathComponent: Sendable, Hashable {
    case key(String)
    case index(Int)
}

extension JSONPathComponent: CustomStringConvertible {
    package var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): "[\(index)]"
        }
    }
}

/// Converts between component arrays and the `$.messages[3].sender` strings validators print.
package enum JSONPath {
    /// `$`, `$.a.b[2]`, `$['odd key']` — readable, and what JSON Schema validators usually report.
    package static func string(_ path: [JSONPathComponent]) -> String {
        var out = "$"
        for component in path {
            switch component {
            case .index(let index): out += "[\(index)]"
            case .key(let key) where isIdentifier(key): out += "." + key
            case .key(let key): out += "['" + key.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'") + "']"
            }
        }
        return out
    }

    /// A human form without the `$`: `messages[3].sender` (what error messages print).
    package static func display(_ path: [JSONPathComponent]) -> String {
        let full = string(path)
        if full == "$" { return "(root)" }
        return full.hasPrefix("$.") ? String(full.dropFirst(2)) : String(full.dropFirst())
    }

    /// Parses `$.a[0].b`, `$['a b']`, `$["a"]`, `a.b` and JSON Pointers (`/a/0/b`); nil when malformed.
    ///
    /// In dotted form a number after a dot is a key; in pointer form an all-digit segment is an index
    /// (pointers cannot tell, and arrays are far more common with numeric segments).
    package static func parse(_ text: String) -> [JSONPathComponent]? {
        if text.isEmpty { return [] }
        if text.hasPrefix("/") || text.hasPrefix("#/") { return parsePointer(text) }
        var chars = Substring(text)
        if chars.hasPrefix("$") { chars = chars.dropFirst() }
        var result: [JSONPathComponent] = []
        var first = true
        while let c = chars.first {
            if c == "." {
                chars = chars.dropFirst()
                let name = chars.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty else { return nil }
                result.append(.key(String(name)))
                chars = chars.dropFirst(name.count)
            } else if c == "[" {
                chars = chars.dropFirst()
                if let quote = chars.first, quote == "'" || quote == "\"" {
                    chars = chars.dropFirst()
                    var key = ""
                    var closed = false
                    while let k = chars.first {
                        chars = chars.dropFirst()
                        if k == "\\", let next = chars.first { key.append(next); chars = chars.dropFirst(); continue }
                        if k == quote { closed = true; break }
                        key.append(k)
                    }
                    guard closed, chars.first == "]" else { return nil }
                    chars = chars.dropFirst()
                    result.append(.key(key))
                } else {
                    let digits = chars.prefix { $0 != "]" }
                    guard let index = Int(digits), chars.dropFirst(digits.count).first == "]" else { return nil }
                    chars = chars.dropFirst(digits.count + 1)
                    result.append(.index(index))
                }
            } else if first, !text.hasPrefix("$") {
                // Bare leading name: `messages[3]`.
                let name = chars.prefix { $0 != "." && $0 != "[" }
                result.append(.key(String(name)))
                chars = chars.dropFirst(name.count)
            } else {
                return nil
            }
            first = false
        }
        return result
    }

    private static func parsePointer(_ text: String) -> [JSONPathComponent] {
        let body = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        return body.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { raw in
            let segment = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let index = Int(segment), !segment.hasPrefix("+"), !segment.hasPrefix("-") { return .index(index) }
            return .key(segment)
        }
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}
