import Foundation
import Core
import Bench
import JobsKit
import Testing

@Suite("Token cost meter: where the bytes go, and emulated prompt caching")
struct TokenCostMeterTests {
    func request(system: String, user: String) -> JSONValue {
        ["model": "m", "response_format": ["type": "json_schema", "json_schema": ["name": "x", "schema": ["type": "object"]]],
         "messages": [["role": "system", "content": .string(system)], ["role": "user", "content": "example"],
                      ["role": "assistant", "content": "{}"], ["role": "user", "content": .string(user)]]]
    }

    @Test func aSharedPrefixIsCachedInWholeBlocksFromTheMinimumOn() {
        let cache = PrefixCacheEmulator()
        let longSystem = String(repeating: "s", count: 6000)  // 1,500 tokens
        #expect(cache.cachedTokens(for: request(system: longSystem, user: "a")) == 0)  // first sight
        let second = cache.cachedTokens(for: request(system: longSystem, user: "b"))
        #expect(second > 0 && second.isMultiple(of: 128))
        #expect(second >= 1024 && second <= 1500)
        // A prefix under 1,024 tokens is never cached.
        let short = String(repeating: "t", count: 3000)
        _ = cache.cachedTokens(for: request(system: short, user: "a"))
        #expect(cache.cachedTokens(for: request(system: short, user: "b")) == 0)
        // A different first byte shares no block.
        #expect(cache.cachedTokens(for: request(system: "x" + longSystem, user: "b")) == 0)
    }

    @Test func theBreakdownFindsMessagesSchemaSystemAndExamples() async throws {
        let body = request(system: "SYS", user: "head\n<messages>\nm1 08:00 p1 \"hi\"\n</messages>")
        let data = body.serializedData()
        let meter = TokenCostMeter(base: EchoTransport())
        _ = try await meter.send(.init(url: URL(string: "http://127.0.0.1/v1/chat/completions")!, body: data, timeout: .seconds(1)))
        let measure = meter.snapshot
        #expect(measure.requests == 1 && measure.bodyBytes == data.count)
        #expect(measure.systemBytes == 3)
        #expect(measure.exampleBytes == "example".utf8.count + 2)
        #expect(measure.messageBlockBytes == "\nm1 08:00 p1 \"hi\"\n".utf8.count)
        #expect(measure.schemaBytes == body["response_format"]!.serialized().utf8.count)
    }
}

import AgentRuntime

/// Answers every request with an empty 200.
struct EchoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 200, body: Data("{}".utf8)) }
}
