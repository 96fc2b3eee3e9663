import Core
@testable import Extractors
import Foundation
import PromptKit
import TestSupport
import Testing

/// The two schemas the code generates from the feature registry, checked in for editors and `prompts lint`:
/// `schemas/combined.schema.json` (the registered features' schemas side by side, as the engine composes a combined
/// request) and `schemas/eval-fixture.schema.json` (the fixture schema with each registered feature's label schema).
/// After a change to the registry or a feature's schema, `MESSAGEAI_WRITE_GENERATED=1 scripts/test --filter
/// GeneratedSchemaTests` rewrites them (then rebuild: the fixture schema is embedded in the binary).
@Suite struct GeneratedSchemaTests {
    static let schemas = RepositoryPaths.root.appendingPathComponent("schemas")

    @Test func theCombinedSchemaFileIsTheCompositionOfTheRegisteredFeaturesSchemas() throws {
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let engine = try ExtractionEngine(prompts: library, provider: RulesAnswerProvider(), registry: .shipping)
        let file = Self.schemas.appendingPathComponent("combined.schema.json")
        var built = try engine.combinedSchema(engine.registry.ids).objectValue ?? JSONObject()
        // The file's own description stays (the composed schema has none).
        let current = FileManager.default.contents(atPath: file.path).flatMap { try? JSONValue.parse($0) }
        built["description"] = current?["description"]
        #expect(try GeneratedFile.matches(.object(built), file: file),
                "schemas/combined.schema.json differs from the registered features' schemas: run \(GeneratedFile.writeVariable)=1 scripts/test --filter GeneratedSchemaTests")
        let reloaded = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let sent = try ExtractionEngine(prompts: reloaded, provider: RulesAnswerProvider(), registry: .shipping).combinedPrompt()
        #expect(sent.outputSchema == reloaded.active(id: CombinedSchema.promptID)?.outputSchema,
                "the combined prompt as sent carries the composed schema")
    }

    /// Its `expected` block and per-feature `$defs` are the registered features' own `labelSchema`s, so the file editors
    /// use and the check the loader makes cannot drift apart.
    @Test func theFixtureSchemaFileIsTheOneBuiltFromTheRegisteredFeatures() throws {
        let built = try FixtureSchema.schema(for: FeatureRegistry.shipping.scoring.features)
        #expect(try GeneratedFile.matches(built, file: Self.schemas.appendingPathComponent("eval-fixture.schema.json")),
                "schemas/eval-fixture.schema.json differs from the registered label schemas: run \(GeneratedFile.writeVariable)=1 scripts/test --filter GeneratedSchemaTests")
        #expect(built["properties"]?["expected"]?["properties"]?.objectValue?.keys == FeatureRegistry.shipping.ids.map(\.rawValue))
        #expect(built["properties"]?["expected"]?["required"] == nil, "a fixture without a list is not labelled for that feature")
    }

    /// The nights fixture schema (docs/nights-format.md) is built from the one-night one, so both take the same labels.
    @Test func theNightsFixtureSchemaFileIsTheOneBuiltFromTheRegisteredFeatures() throws {
        let built = try FixtureSchema.nightsSchema(for: FeatureRegistry.shipping.scoring.features)
        #expect(try GeneratedFile.matches(built, file: Self.schemas.appendingPathComponent("eval-nights-fixture.schema.json")),
                "schemas/eval-nights-fixture.schema.json differs from the registered label schemas: run \(GeneratedFile.writeVariable)=1 scripts/test --filter GeneratedSchemaTests")
        let night = built["properties"]?["nights"]?["items"]
        #expect(night?["properties"]?["expected"] == (try FixtureSchema.schema(for: FeatureRegistry.shipping.scoring.features))["properties"]?["expected"])
        #expect(built["properties"]?["messages"] == nil)
        #expect(built["properties"]?["reference"]?["required"] == ["timezone", "user"])
    }
}
