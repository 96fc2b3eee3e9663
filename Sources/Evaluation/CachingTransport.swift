package import AgentRuntime
import Crypto
import Extractors
package import Foundation
import Core

/// Hits, misses and the tokens actually sent over the network, counted across concurrent requests.
package actor CacheStats {
    package private(set) var hits = 0
    package private(set) var misses = 0
    /// Usage reported by answers that came from the network (cache hits cost nothing).
    package private(set) var networkUsage = TokenUsage()

    package init() {}

    func recordHit() { hits += 1 }

    func recordMiss(usage: TokenUsage) {
        misses += 1
        networkUsage += usage
    }

    package var snapshot: CacheSummary { CacheSummary(hits: hits, misses: misses, networkUsage: networkUsage) }
}

/// An `HTTPTransport` that answers repeated requests from disk, so re-running an unchanged prompt costs nothing.
///
/// The key is the SHA-256 of method, URL and body — never headers, so the API key is neither part of the
/// key nor written to the file. Each file also holds the request body, compared on read, so a hash collision
/// can only cost a miss. Only 2xx answers are stored: a 429 or 500 must be retried, not replayed.
/// Files are written to a temporary name and renamed, so a concurrent reader never sees half a file.
package struct CachingTransport: HTTPTransport {
    package let base: any HTTPTransport
    package let directory: URL
    /// False for `--no-cache`: every request goes to the network, and answers are still stored.
    package let readCache: Bool
    package let stats: CacheStats

    package init(base: any HTTPTransport, directory: URL, readCache: Bool = true, stats: CacheStats = CacheStats()) {
        self.base = base
        self.directory = directory
        self.readCache = readCache
        self.stats = stats
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let file = fileURL(for: request)
        if readCache, let cached = Self.read(file, matching: request) {
            await stats.recordHit()
            return cached
        }
        // The cache sits below the client, so it scrubs what it writes itself: the request's own bearer token.
        let response = SecretScrubbing.scrub(try await base.send(request), secret: SecretScrubbing.bearerToken(request.headers))
        await stats.recordMiss(usage: Self.usage(in: response))
        if (200..<300).contains(response.status) {
            try? Self.write(response, for: request, to: file)
        }
        return response
    }

    /// True when `send` would answer `request` from disk, without the network.
    package func answers(_ request: HTTPRequest) -> Bool {
        readCache && Self.read(fileURL(for: request), matching: request) != nil
    }

    /// `<directory>/<64 hex digits>.json`. (Entries named by the earlier 32-digit key are never looked up: misses.)
    package func fileURL(for request: HTTPRequest) -> URL {
        directory.appendingPathComponent(Self.key(for: request) + ".json")
    }

    package static func key(for request: HTTPRequest) -> String {
        var bytes = Array(request.method.utf8)
        bytes.append(0)
        bytes += Array(request.url.absoluteString.utf8)
        bytes.append(0)
        bytes += Array(request.body)
        return SHA256.hash(data: bytes).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    static func read(_ file: URL, matching request: HTTPRequest) -> HTTPResponse? {
        guard let data = FileManager.default.contents(atPath: file.path),
              let entry = try? JSONValue.parse(data),
              entry["format"]?.integerValue == 1,
              entry["method"]?.stringValue == request.method,
              entry["url"]?.stringValue == request.url.absoluteString,
              entry["request"]?.stringValue == String(data: request.body, encoding: .utf8),
              let status = entry["status"]?.integerValue,
              let body = entry["response"]?.stringValue else { return nil }
        return HTTPResponse(status: Int(status), headers: ["content-type": "application/json", "x-messageai-eval-cache": "hit"],
                            body: Data(body.utf8))
    }

    /// Skips bodies that are not UTF-8 (the client only sends and expects JSON text).
    static func write(_ response: HTTPResponse, for request: HTTPRequest, to file: URL) throws {
        guard let requestText = String(data: request.body, encoding: .utf8),
              let responseText = String(data: response.body, encoding: .utf8) else { return }
        let entry: JSONValue = [
            "format": 1,
            "method": .string(request.method),
            "url": .string(request.url.absoluteString),
            "status": .integer(Int64(response.status)),
            "request": .string(requestText),
            "response": .string(responseText),
        ]
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        try Data(entry.serialized(pretty: true).utf8).write(to: temporary)
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// The `usage` block of a Chat Completions body, zero when absent or unreadable.
    static func usage(in response: HTTPResponse) -> TokenUsage {
        guard let json = try? JSONValue.parse(response.body), let usage = json["usage"] else { return TokenUsage() }
        func int(_ value: JSONValue?) -> Int { value?.integerValue.map { Int($0) } ?? 0 }
        return TokenUsage(promptTokens: int(usage["prompt_tokens"]), completionTokens: int(usage["completion_tokens"]),
                          cachedPromptTokens: int(usage["prompt_tokens_details"]?["cached_tokens"]))
    }
}

/// Cache counters as written to the report.
package struct CacheSummary: Sendable, Hashable, Codable {
    package var hits: Int
    package var misses: Int
    @ReportTokens package var networkUsage: TokenUsage

    package init(hits: Int = 0, misses: Int = 0, networkUsage: TokenUsage = TokenUsage()) {
        self.hits = hits
        self.misses = misses
        self.networkUsage = networkUsage
    }

    enum CodingKeys: String, CodingKey {
        case hits, misses
        case networkUsage = "network_usage"
    }
}

/// ``TokenUsage`` in the eval report's snake_case shape (`prompt_tokens`, `completion_tokens`,
/// `cached_prompt_tokens`), so reports written before and after read the same as baselines.
@propertyWrapper
package struct ReportTokens: Sendable, Hashable, Codable {
    package var wrappedValue: TokenUsage

    package init(wrappedValue: TokenUsage) { self.wrappedValue = wrappedValue }

    enum CodingKeys: String, CodingKey {
        case prompt = "prompt_tokens"
        case completion = "completion_tokens"
        case cached = "cached_prompt_tokens"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        wrappedValue = TokenUsage(promptTokens: try container.decode(Int.self, forKey: .prompt),
                                  completionTokens: try container.decode(Int.self, forKey: .completion),
                                  cachedPromptTokens: try container.decode(Int.self, forKey: .cached))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(wrappedValue.promptTokens, forKey: .prompt)
        try container.encode(wrappedValue.completionTokens, forKey: .completion)
        try container.encode(wrappedValue.cachedPromptTokens, forKey: .cached)
    }
}
