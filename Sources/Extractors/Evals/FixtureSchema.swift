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

    /// The embedded file is not a schema object with `properties` and `$defs`.
    struct NotASchema: Error {}
}
