package import Foundation
import Core

/// Removes a secret (the API key) from a response body before anything reads, stores or caches it: a proxy or a
/// compromised server that echoes the `Authorization` header in a 200 answer must not get the key into rows,
/// traces, reports or cache files. Model text is untrusted data like any other.
package enum SecretScrubbing {
    /// What replaces the secret; valid inside a JSON string.
    package static let replacement = "[redacted]"

    /// The body with every occurrence of `secret` replaced, however disguised (`SecretText`: case, NFKC, JSON, percent
    /// and HTML escapes, format characters, its core), also inside strings (and JSON text nested in strings, such as
    /// `content` and tool-call `arguments`) whose characters are escaped in ways the text search cannot read (surrogate
    /// pairs). Secrets shorter than 8 characters are left alone (replacing them would mangle ordinary text).
    package static func scrub(_ body: Data, secret: String?) -> Data {
        guard let secret, secret.count >= 8, !body.isEmpty else { return body }
        let escaped = String(JSONValue.string(secret).serialized().dropFirst().dropLast())
        let original = String(decoding: body, as: UTF8.self)
        var text = original
        for form in Set([secret, escaped]) {
            text = SecretText.replacing(form, in: text, with: replacement)
        }
        // A surrogate pair (\ud835\udc2c, a mathematical `s`) decodes only once parsed: check the parsed strings too, per
        // line for JSONL (Batch API output files). Without a \u escape the text search saw everything, so most answers skip the parse.
        guard text.contains("\\u") else { return text == original ? body : Data(text.utf8) }
        if let json = try? JSONValue.parse(text) {
            if let clean = scrub(json, secret: secret, depth: 0) { text = clean.serialized() }
        } else if text.contains("\n") {
            text = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard let json = try? JSONValue.parse(String(line)), let clean = scrub(json, secret: secret, depth: 0) else { return String(line) }
                return clean.serialized()
            }.joined(separator: "\n")
        }
        return text == original ? body : Data(text.utf8)
    }

    /// The response with its body and header values scrubbed (`x-request-id` is stored with traces and logged).
    package static func scrub(_ response: HTTPResponse, secret: String?) -> HTTPResponse {
        var copy = response
        copy.body = scrub(response.body, secret: secret)
        if let secret, secret.count >= 8 {
            copy.headers = response.headers.mapValues { SecretText.replacing(secret, in: $0, with: replacement) }
        }
        return copy
    }

    /// The bearer token of an `Authorization` header, the secret a response must not carry back.
    package static func bearerToken(_ headers: [String: String]) -> String? {
        guard let value = headers.first(where: { $0.key.lowercased() == "authorization" })?.value else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        return parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : nil
    }

    /// The value with the secret replaced, or nil when it did not contain it.
    static func scrub(_ value: JSONValue, secret: String, depth: Int) -> JSONValue? {
        guard depth < 4 else { return nil }
        switch value {
        case .string(let text):
            if SecretText.contains(secret, in: text) { return .string(SecretText.replacing(secret, in: text, with: replacement)) }
            // JSON text inside a string (structured output, tool arguments) may hide it behind another escape.
            guard let first = text.first, first == "{" || first == "[", let nested = try? JSONValue.parse(text),
                  let clean = scrub(nested, secret: secret, depth: depth + 1) else { return nil }
            return .string(clean.serialized())
        case .array(let items):
            var changed = false
            let cleaned = items.map { item -> JSONValue in
                guard let clean = scrub(item, secret: secret, depth: depth) else { return item }
                changed = true
                return clean
            }
            return changed ? .array(cleaned) : nil
        case .object(let object):
            var changed = false
            let pairs = object.map { pair -> (String, JSONValue) in
                let key = SecretText.replacing(secret, in: pair.key, with: replacement)
                let clean = scrub(pair.value, secret: secret, depth: depth)
                if clean != nil || key != pair.key { changed = true }
                return (key, clean ?? pair.value)
            }
            return changed ? .object(JSONObject(pairs)) : nil
        default:
            return nil
        }
    }
}
