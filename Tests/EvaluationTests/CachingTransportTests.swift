import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Testing
import Evaluation
import TestSupport

/// A transport that counts calls and answers with a fixed status.
private actor CountingTransport: HTTPTransport {
    var calls = 0
    let status: Int

    init(status: Int = 200) { self.status = status }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        calls += 1
        let body: JSONValue = ["answer": .integer(Int64(calls)), "usage": ["prompt_tokens": 7, "completion_tokens": 3]]
        return HTTPResponse(status: status, body: body.serializedData())
    }
}

@Suite("Eval cache")
struct CachingTransportTests {
    static func request(_ body: String, key: String = "sk-one") -> HTTPRequest {
        HTTPRequest(method: "POST", url: URL(string: "http://127.0.0.1:9/v1/chat/completions")!,
                    headers: ["Authorization": "Bearer \(key)"], body: Data(body.utf8), timeout: .seconds(5))
    }

    @Test("the key is the SHA-256 of method, URL and body, in hex; the API key is not part of it")
    func keyIsSHA256() {
        // `printf 'POST\0http://127.0.0.1:9/v1/chat/completions\0{}' | sha256sum`
        let key = CachingTransport.key(for: Self.request("{}"))
        #expect(key == "b67740b431f755f152c5e7213aebf3b1f11520ca5a553b0f810028b42ab7a142")
        #expect(key != CachingTransport.key(for: Self.request("{ }")))
        #expect(key == CachingTransport.key(for: Self.request("{}", key: "sk-two")))
    }

    @Test("a repeated request is served from disk; headers (the API key) are not part of the key or the file")
    func hitsAndMisses() async throws {
        let directory = try EvalTestSupport.temporaryDirectory("transport")
        let base = CountingTransport()
        let cache = CachingTransport(base: base, directory: directory)
        let first = try await cache.send(Self.request(#"{"q":1}"#))
        let second = try await cache.send(Self.request(#"{"q":1}"#, key: "sk-two"))
        #expect(await base.calls == 1)
        #expect(second.body == first.body && second.status == 200)
        #expect(second.header("x-messageai-eval-cache") == "hit")
        _ = try await cache.send(Self.request(#"{"q":2}"#))
        #expect(await base.calls == 2)
        let stats = await cache.stats.snapshot
        #expect(stats.hits == 1 && stats.misses == 2)
        #expect(stats.networkUsage == TokenUsage(promptTokens: 14, completionTokens: 6))

        let file = cache.fileURL(for: Self.request(#"{"q":1}"#))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("sk-one") && !text.contains("Bearer"))
        #expect(try JSONValue.parse(text)["request"]?.stringValue == #"{"q":1}"#)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".tmp-") })
    }

    @Test("a file whose stored request differs (a collision) is a miss, and is replaced")
    func collisionGuard() async throws {
        let directory = try EvalTestSupport.temporaryDirectory("transport")
        let base = CountingTransport()
        let cache = CachingTransport(base: base, directory: directory)
        let request = Self.request(#"{"q":1}"#)
        _ = try await cache.send(request)
        let file = cache.fileURL(for: request)
        var entry = try JSONValue.parse(try Data(contentsOf: file))
        guard case .object(var object) = entry else { Issue.record("cache file is not an object"); return }
        object["request"] = .string(#"{"q":"other"}"#)
        entry = .object(object)
        try entry.serializedData().write(to: file)
        _ = try await cache.send(request)
        #expect(await base.calls == 2)
        _ = try await cache.send(request)
        #expect(await base.calls == 2, "the rewritten file serves the next request")
    }

    @Test("--no-cache skips reading but still writes; non-2xx answers are never stored")
    func noCacheAndErrors() async throws {
        let directory = try EvalTestSupport.temporaryDirectory("transport")
        let base = CountingTransport()
        let writeOnly = CachingTransport(base: base, directory: directory, readCache: false)
        _ = try await writeOnly.send(Self.request("x"))
        _ = try await writeOnly.send(Self.request("x"))
        #expect(await base.calls == 2)
        let reading = CachingTransport(base: base, directory: directory)
        let served = try await reading.send(Self.request("x"))
        #expect(await base.calls == 2)
        #expect(try JSONValue.parse(served.body)["answer"]?.integerValue == 2, "the latest answer was stored")

        let failing = CountingTransport(status: 429)
        let cache = CachingTransport(base: failing, directory: directory)
        _ = try await cache.send(Self.request("y"))
        _ = try await cache.send(Self.request("y"))
        #expect(await failing.calls == 2)
        #expect(!FileManager.default.fileExists(atPath: cache.fileURL(for: Self.request("y")).path))
    }
}
