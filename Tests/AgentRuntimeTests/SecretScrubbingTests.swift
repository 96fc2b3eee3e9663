import AgentRuntime
import Foundation
import Core
import Testing

/// The API key is removed from response bodies however a server hides it (issue 14, item 5).
@Suite("Secret scrubbing")
struct SecretScrubbingTests {
    let key = "sk-test-SCRUB-1122334455"

    func scrubbed(_ text: String) -> String {
        String(decoding: SecretScrubbing.scrub(Data(text.utf8), secret: key), as: UTF8.self)
    }

    @Test func rawEscapedNestedAndJSONLFormsAreRemoved() throws {
        #expect(scrubbed("Bearer \(key)") == "Bearer [redacted]")
        // Structured output whose string hides the key behind \u0073: the key only appears once the content is parsed.
        let content = #"{"title":"x \u0073k-test-SCRUB-1122334455"}"#
        let body = JSONValue.object(["choices": [["message": ["content": .string(content)]]]]).serialized()
        let clean = scrubbed(body)
        #expect(!clean.contains("1122334455"))
        let parsed = try JSONValue.parse(clean)
        let inner = try JSONValue.parse(try #require(parsed["choices"]?[0]?["message"]?["content"]?.stringValue))
        #expect(inner["title"]?.stringValue == "x [redacted]")
        // JSONL, as Batch API output files are.
        let jsonl = body + "\n" + #"{"k":"\u0073k-test-SCRUB-1122334455"}"# + "\n"
        #expect(!scrubbed(jsonl).contains("1122334455"))
        #expect(scrubbed(jsonl).split(separator: "\n").count == 2)
    }

    @Test func bodiesWithoutTheKeyAreUntouched() {
        let body = Data([0x7B, 0xFF, 0x7D])  // not UTF-8: returned byte for byte
        #expect(SecretScrubbing.scrub(body, secret: key) == body)
        #expect(scrubbed(#"{"a":"\u00e9"}"#) == #"{"a":"\u00e9"}"#)
        #expect(SecretScrubbing.scrub(Data("short abc".utf8), secret: "abc") == Data("short abc".utf8))
        #expect(SecretScrubbing.bearerToken(["Authorization": "Bearer \(key)"]) == key)
    }
}
