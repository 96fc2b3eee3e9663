import Core
import Foundation

/// The fixture schema: `schemas/eval-fixture.schema.json` (the file editors and other tools use), compiled into the
/// binary through the Embedded module, with its `expected` block built from the scored features: one optional list
/// per feature (no list: the fixture is not labelled for it), its items checked by the feature's `labelSchema` under
/// `$defs/<feature>`. The file is that schema for
/// the shipping features, generated (GeneratedSchemaTests), so a sixth feature's lists are accepted once it is registered.
enum FixtureSchema {
    /// The path of the schema among the embedded files, as in the repository.
    static let path = "schemas/eval-fixture.schema.json"

    /// The schema's text; empty only if the file was not embedded, which the loader reports and a test rules out.
    static let text: String = EmbeddedFiles.all[path].map { String(decoding: $0, as: UTF8.self) } ?? ""

    /// The file's schema, with `expected` and the per-feature `$defs` those of `features`.
    static func schema(for features: [ScoredFeature]) throws -> JSONValue {
        guard case .object(var root) = try JSONValue.parse(text), case .object(var defs)? = root["$defs"] else {
            throw NotASchema()
        }
        var lists = JSONObject()
        for feature in features {
            defs[feature.id.rawValue] = feature.labelSchema
            lists[feature.id.rawValue] = ["type": "array", "items": ["$ref": .string("#/$defs/\(feature.id.rawValue)")]]
        }
        guard case .object(var properties)? = root["properties"] else { throw NotASchema() }
        properties["expected"] = [
            "type": "object",
            "additionalProperties": false,
            "properties": .object(lists),
        ]
        root["properties"] = .object(properties)
        root["$defs"] = .object(defs)
        return .object(root)
    }

    /// The nights fixture schema (`schemas/eval-nights-fixture.schema.json`, docs/nights-format.md), built from the
    /// one-night schema so the two cannot drift apart: `nights` (each with `now`, its `messages` and `expected`)
    /// instead of `messages` and `expected`, and a `reference` without `now`.
    static func nightsSchema(for features: [ScoredFeature]) throws -> JSONValue {
        guard case .object(var root) = try schema(for: features), case .object(var properties)? = root["properties"],
              let messages = properties["messages"], let expected = properties["expected"],
              case .object(var reference)? = properties["reference"], case .object(var referenceFields)? = reference["properties"]
        else { throw NotASchema() }
        referenceFields["now"] = nil
        reference["properties"] = .object(referenceFields)
        reference["required"] = ["timezone", "user"]
        reference["description"] = "For whom the chat is read: relative dates resolve in this time zone; RSVP status is this user's. Each night has its own now."
        var nightMessages = messages.objectValue ?? [:]
        nightMessages["minItems"] = 0
        properties["reference"] = .object(reference)
        properties["messages"] = nil
        properties["expected"] = nil
        properties["nights"] = [
            "description": "The chat night by night: when the scan runs, the messages sent since the previous night, and what the app shows the reference user right after it.",
            "type": "array",
            "minItems": 1,
            "items": [
                "type": "object",
                "required": ["now", "messages", "expected"],
                "additionalProperties": false,
                "properties": ["now": ["$ref": "#/$defs/instant"], "messages": .object(nightMessages), "expected": expected],
            ],
        ]
        root["properties"] = .object(properties)
        root["required"] = ["id", "description", "reference", "participants", "nights"]
        root["$id"] = "https://messageai.example/schemas/eval-nights-fixture.schema.json"
        root["title"] = "MessageAI eval fixture read over nights"
        root["description"] = "One labelled chat read night by night (docs/nights-format.md). Dates are YYYY-MM-DD, times HH:MM (24 h), instants ISO 8601 with an offset."
        return .object(root)
    }

    /// The embedded file is not a schema object with `properties` and `$defs`.
    struct NotASchema: Error {}
}
