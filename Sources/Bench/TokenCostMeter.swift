package import AgentRuntime
import Foundation
package import Core

/// What one side of the token benchmark sent, counted on the wire: every request body in full (the conservative
/// count), split by where the bytes go, and the prompt tokens a provider's prefix cache would have served.
package struct TokenCostMeasure: Sendable, Codable, Equatable {
    package var requests = 0
    /// Whole request bodies: every byte of JSON, schema and prompt.
    package var bodyBytes = 0
    /// Between `<messages>` and `</messages>` of the last user message.
    package var messageBlockBytes = 0
    /// The compact JSON of `response_format`.
    package var schemaBytes = 0
    /// The system message.
    package var systemBytes = 0
    /// Few-shot messages between the system message and the last user message.
    package var exampleBytes = 0
    /// Prompt tokens (by `TokenCostRule`) that emulated prefix caching served from cache.
    package var cachedPromptTokens = 0
    /// Per response schema name (`combined`, or each feature's): tokens of the cacheable prompt text
    /// (`PrefixCacheEmulator.prefixText`) that every request of that name shares, the static prefix a provider can
    /// cache across conversations. OpenAI caches from 1,024 tokens on.
    package var sharedPrefixTokens: [String: Int] = [:]

    /// Tokens of whole bodies at 4 bytes per token.
    package var bodyTokens: Int { TokenCostRule.tokens(bytes: bodyBytes) }

    enum CodingKeys: String, CodingKey {
        case requests
        case bodyBytes = "body_bytes"
        case messageBlockBytes = "message_block_bytes"
        case schemaBytes = "schema_bytes"
        case systemBytes = "system_bytes"
        case exampleBytes = "example_bytes"
        case cachedPromptTokens = "cached_prompt_tokens"
        case sharedPrefixTokens = "shared_prefix_tokens"
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requests = try c.decode(Int.self, forKey: .requests)
        bodyBytes = try c.decode(Int.self, forKey: .bodyBytes)
        messageBlockBytes = try c.decode(Int.self, forKey: .messageBlockBytes)
        schemaBytes = try c.decode(Int.self, forKey: .schemaBytes)
        systemBytes = try c.decode(Int.self, forKey: .systemBytes)
        exampleBytes = try c.decode(Int.self, forKey: .exampleBytes)
        cachedPromptTokens = try c.decodeIfPresent(Int.self, forKey: .cachedPromptTokens) ?? 0
        sharedPrefixTokens = try c.decodeIfPresent([String: Int].self, forKey: .sharedPrefixTokens) ?? [:]
    }

    /// "messages 54%, schema 16%, …" of the body bytes.
    package var breakdown: String {
        guard bodyBytes > 0 else { return "nothing sent" }
        let rest = bodyBytes - messageBlockBytes - schemaBytes - systemBytes - exampleBytes
        return [("<messages> block", messageBlockBytes), ("schema", schemaBytes), ("system prompts", systemBytes),
                ("examples", exampleBytes), ("the rest", rest)]
            .map { String(format: "%@ %.0f%%", $0.0, 100 * Double($0.1) / Double(bodyBytes)) }.joined(separator: ", ")
    }
}

/// Emulates OpenAI's automatic prompt caching for the benchmark: a request's prompt is the compact JSON of
/// `response_format` and `tools` (a schema is a prefix of the system message) followed by each message's text;
/// the cached part is the longest prefix, in whole 128-token blocks, that an earlier request already sent, and
/// only when it reaches 1,024 tokens, as OpenAI documents. Blocks are keyed by a running FNV-1a hash of all bytes
/// up to the block's end, so a block matches only when everything before it matches too.
package final class PrefixCacheEmulator: @unchecked Sendable {
    package static let blockTokens = 128
    package static let minimumTokens = 1024
    private static let blockBytes = blockTokens * 4
    private let lock = NSLock()
    private var seen: Set<UInt64> = []

    package init() {}

    /// The prompt tokens a cache would have served for `request`; remembers its blocks for later requests.
    package func cachedTokens(for request: JSONValue) -> Int {
        let bytes = Array(Self.prefixText(request).utf8)
        var keys: [UInt64] = []
        keys.reserveCapacity(bytes.count / Self.blockBytes)
        var hash = StableHash()
        for (index, byte) in bytes.enumerated() {
            hash.add(byte)
            if (index + 1) % Self.blockBytes == 0 { keys.append(hash.value) }
        }
        let hits = lock.withLock {
            let hits = keys.prefix { seen.contains($0) }.count
            seen.formUnion(keys)
            return hits
        }
        let cached = hits * Self.blockTokens
        return cached >= Self.minimumTokens ? cached : 0
    }

    static func prefixText(_ request: JSONValue) -> String {
        var text = ""
        for key in ["response_format", "tools"] {
            if let value = request[key], !value.isNull { text += value.serialized() }
        }
        for message in request["messages"]?.arrayValue ?? [] {
            switch message["content"] {
            case .string(let content)?: text += content
            case .array(let parts)?: text += parts.compactMap { $0["text"]?.stringValue }.joined()
            default: break
            }
        }
        return text
    }
}

/// Counts what passes through it into a `TokenCostMeasure`, and adds the emulated `cached_tokens` to each answer's
/// `usage.prompt_tokens_details`, so the scan reports (and prices) cached tokens as it would against OpenAI.
package final class TokenCostMeter: HTTPTransport, @unchecked Sendable {
    private let base: any HTTPTransport
    private let cache: PrefixCacheEmulator
    private let lock = NSLock()
    private var measure = TokenCostMeasure()
    /// Per response schema name, the prompt text every request so far began with.
    private var sharedPrefixes: [String: [UInt8]] = [:]

    package init(base: any HTTPTransport = AsyncHTTPClientTransport.shared, cache: PrefixCacheEmulator = PrefixCacheEmulator()) {
        self.base = base
        self.cache = cache
    }

    package var snapshot: TokenCostMeasure {
        lock.withLock {
            var result = measure
            result.sharedPrefixTokens = sharedPrefixes.mapValues { TokenCostRule.tokens(bytes: $0.count) }
            return result
        }
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let json = try? JSONValue.parse(request.body) else { return try await base.send(request) }
        let cached = cache.cachedTokens(for: json)
        let part = Self.measure(json, bodyBytes: request.body.count)
        let name = json["response_format"]?["json_schema"]?["name"]?.stringValue ?? "(no schema)"
        let prefix = Array(PrefixCacheEmulator.prefixText(json).utf8)
        var response = try await base.send(request)
        if (200..<300).contains(response.status), cached > 0, case .object(var object)? = try? JSONValue.parse(response.body),
           case .object(var usage)? = object["usage"] {
            var details = usage["prompt_tokens_details"]?.objectValue ?? JSONObject()
            details["cached_tokens"] = .integer(Int64(cached))
            usage["prompt_tokens_details"] = .object(details)
            object["usage"] = .object(usage)
            response.body = JSONValue.object(object).serializedData()
        }
        lock.withLock {
            measure.requests += 1
            measure.bodyBytes += part.bodyBytes
            measure.messageBlockBytes += part.messageBlockBytes
            measure.schemaBytes += part.schemaBytes
            measure.systemBytes += part.systemBytes
            measure.exampleBytes += part.exampleBytes
            measure.cachedPromptTokens += cached
            if let shared = sharedPrefixes[name] {
                sharedPrefixes[name] = Array(zip(shared, prefix).prefix { $0.0 == $0.1 }.map { $0.0 })
            } else {
                sharedPrefixes[name] = prefix
            }
        }
        return response
    }

    /// Where one request body's bytes go.
    static func measure(_ request: JSONValue, bodyBytes: Int) -> TokenCostMeasure {
        var part = TokenCostMeasure()
        part.bodyBytes = bodyBytes
        if let format = request["response_format"], !format.isNull { part.schemaBytes = format.serialized().utf8.count }
        let messages = request["messages"]?.arrayValue ?? []
        func text(_ message: JSONValue) -> String { message["content"]?.stringValue ?? "" }
        if let first = messages.first, first["role"]?.stringValue == "system" { part.systemBytes = text(first).utf8.count }
        if messages.count > 2 { part.exampleBytes = messages[1..<(messages.count - 1)].reduce(0) { $0 + text($1).utf8.count } }
        if let last = messages.last {
            let content = text(last)
            if let open = content.range(of: "<messages>"), let close = content.range(of: "</messages>", options: .backwards),
               open.upperBound <= close.lowerBound {
                part.messageBlockBytes = content[open.upperBound..<close.lowerBound].utf8.count
            }
        }
        return part
    }
}
