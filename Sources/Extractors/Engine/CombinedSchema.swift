package import Core

/// The one strict schema of a combined request: an object with one required property per feature, each property
/// exactly that feature's output schema. Composed from the features' own schemas, so the answer's parts are checked
/// by the same schemas (and decoders) as per-feature answers, and the two cannot drift apart.
package enum CombinedSchema {
    /// The combined prompt's id (`prompts/combined.yaml`) and its `response_format` name.
    package static let promptID = "combined"

    /// `{"type": "object", "properties": {feature: schema, …}, "required": [features…], "additionalProperties": false}`,
    /// features in the order given. A feature schema with its own `$defs` cannot be nested (strict mode allows `$defs`
    /// only at the root), so it is refused.
    static func compose(_ parts: [(feature: ExtractionFeature, schema: JSONValue)]) throws(ExtractionError) -> JSONValue {
        var properties = JSONObject()
        for part in parts {
            if part.schema["$defs"] != nil {
                throw .promptProblem("\(part.feature.rawValue): a schema with $defs cannot be part of a combined request")
            }
            properties[part.feature.rawValue] = part.schema
        }
        return [
            "type": "object",
            "properties": .object(properties),
            "required": .array(parts.map { .string($0.feature.rawValue) }),
            "additionalProperties": false,
        ]
    }

    /// Keeps only `features` in an answer shaped like the combined schema (for a combined prompt's example when a run
    /// asks for fewer features than the example shows).
    package static func restrict(_ answer: JSONValue, to features: [ExtractionFeature]) -> JSONValue {
        guard let object = answer.objectValue else { return answer }
        var kept = JSONObject()
        for feature in features { if let part = object[feature.rawValue] { kept[feature.rawValue] = part } }
        return .object(kept)
    }

    /// The answer that finds nothing, in `schema`'s shape: every required array empty, every nullable value null
    /// (`{"events": []}` for calendar events). A combined prompt's example shows it for a feature it has no example of,
    /// and test doubles answer it for a feature they do not know.
    package static func emptyAnswer(_ schema: JSONValue) -> JSONValue {
        let types: [String] = schema["type"]?.stringValue.map { [$0] } ?? schema["type"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if types.contains("null") { return .null }
        switch types.first ?? "" {
        case "array": return .array([])
        case "object":
            var object = JSONObject()
            for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                object[key] = emptyAnswer(schema["properties"]?[key] ?? .object([:]))
            }
            return .object(object)
        case "string": return .string("")
        case "number", "integer": return .integer(0)
        case "boolean": return .bool(false)
        default: return .null
        }
    }
}
