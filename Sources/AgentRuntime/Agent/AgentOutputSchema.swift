package import Core

/// The shape the agent's final answer must have. The answer is validated with the same validator as tool arguments.
package struct AgentOutputSchema: Sendable {
    package let name: String
    package let schema: JSONValue
    /// Sent as `response_format`; use `LLMConfiguration.responseFormat(for:name:)` so it suits the provider.
    package let responseFormat: ResponseFormat
    let validator: JSONSchema

    package init(name: String, schema: JSONValue, responseFormat: ResponseFormat? = nil) throws(JSONSchemaError) {
        self.name = name
        self.schema = schema
        self.responseFormat = responseFormat ?? .jsonSchema(name: name, schema: schema, strict: true)
        validator = try JSONSchema(schema)
    }

    /// The parsed answer, or the reasons it does not fit (JSON errors and schema violations with their paths). A list
    /// longer than its `maxItems` keeps its first items (a step is not spent re-asking for a shorter list).
    func check(_ text: String) -> Result<JSONValue, OutputMismatch> {
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(text) } catch { return .failure(OutputMismatch(problems: ["the answer is not JSON: \(error)"])) }
        let value = validator.truncatingArrays(parsed).value
        let violations = validator.validate(value)
        return violations.isEmpty ? .success(value) : .failure(OutputMismatch(problems: violations.map(\.description)))
    }
}

struct OutputMismatch: Error {
    let problems: [String]
    var summary: String { bounded(problems.prefix(10).joined(separator: "; "), limit: 1000) }
}
