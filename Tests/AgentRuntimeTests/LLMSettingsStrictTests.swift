import AgentRuntime
import Testing

/// A mode or field spelled otherwise, or a base URL that is not http(s), is an error naming the variable, not a
/// silent default (issue 35 item 6).
@Suite("LLM settings are strict")
struct LLMSettingsStrictTests {
    @Test(arguments: [("OPENAI_STRUCTURED_OUTPUT", "json-object"), ("OPENAI_STRUCTURED_OUTPUT", "xml"), ("OPENAI_STRUCTURED_OUTPUT", "JSON_OBJECT"),
                      ("OPENAI_MAX_TOKENS_FIELD", "max-tokens"), ("OPENAI_BASE_URL", "127.0.0.1:8080"), ("OPENAI_BASE_URL", "file:///tmp")])
    func anUnknownValueThrows(_ name: String, _ value: String) {
        var environment = ["OPENAI_API_KEY": "sk-test-strict", name: value]
        if name == "OPENAI_BASE_URL" { environment["OPENAI_API_KEY"] = nil }
        #expect {
            _ = try LLMConfiguration.fromEnvironment(environment)
        } throws: { error in
            "\(error)".hasPrefix(name) && "\(error)".contains("is not valid")
        }
        #expect(throws: LLMSettingError.self) { try LLMConfiguration.check(name, value) }
    }

    @Test func knownValuesStillRead() throws {
        let configuration = try #require(try LLMConfiguration.fromEnvironment([
            "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_STRUCTURED_OUTPUT": "json_object", "OPENAI_MAX_TOKENS_FIELD": "max_tokens",
        ]))
        #expect(configuration.structuredOutput == .jsonObject && configuration.maxTokensField == .maxTokens)
        try LLMConfiguration.check("OPENAI_STRUCTURED_OUTPUT", "json_schema")
        #expect(try LLMConfiguration.fromEnvironment([:]) == nil)
    }
}
