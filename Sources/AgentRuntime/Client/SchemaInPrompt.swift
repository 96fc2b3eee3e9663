package import Core

/// The answer's schema written into a system prompt, for a request whose server is not holding the answer to it:
/// `json_object` mode, or an agent's tool steps sent without a format. One wording for the extractors and the agent.
package enum SchemaInPrompt {
    /// The words before the schema's JSON, which ends the prompt.
    package static let lead = "\n\nAnswer with one JSON object that matches this JSON Schema:\n"

    package static func appending(_ schema: JSONValue, to system: String) -> String {
        system + lead + schema.serialized()
    }
}
