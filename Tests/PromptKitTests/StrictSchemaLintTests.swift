import Foundation
import Core
import Testing
@testable import PromptKit

@Suite("Strict schema lint")
struct StrictSchemaLintTests {
    /// A valid strict schema with one nested object; tests break one thing at a time.
    func schema(item: JSONValue) -> JSONValue {
        ["type": "object", "properties": ["items": ["type": "array", "items": item]], "required": ["items"], "additionalProperties": false]
    }

    let goodItem: JSONValue = [
        "type": "object",
        "properties": ["name": ["type": "string"], "when": ["type": ["string", "null"], "format": "date"]],
        "required": ["name", "when"],
        "additionalProperties": false,
    ]

    @Test func acceptsAStrictSchema() {
        #expect(StrictSchemaLint.problems(in: schema(item: goodItem)) == [])
    }

    @Test func flagsAPropertyMissingFromRequired() {
        var item = goodItem.objectValue!
        item["required"] = ["name"]
        let problems = StrictSchemaLint.problems(in: schema(item: .object(item)))
        #expect(problems == ["$.properties.items.items.properties.when: property 'when' is not in required (strict mode needs every property; make it nullable instead)"])
    }

    @Test func flagsMissingAdditionalPropertiesFalse() {
        var item = goodItem.objectValue!
        item["additionalProperties"] = nil
        let problems = StrictSchemaLint.problems(in: schema(item: .object(item)))
        #expect(problems == ["$.properties.items.items: objects must set \"additionalProperties\": false"])
    }

    @Test func flagsABareNullable() {
        var item = goodItem.objectValue!
        item["properties"] = ["name": ["type": "string"], "when": ["type": "string", "nullable": true]]
        let problems = StrictSchemaLint.problems(in: schema(item: .object(item)))
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("$.properties.items.items.properties.when.nullable:") == true)
    }

    @Test func flagsRootAnyOfUnsupportedKeywordsAndFormats() {
        let root: JSONValue = ["anyOf": [["type": "object"]]]
        #expect(StrictSchemaLint.problems(in: root).contains("$: the root must be a plain object schema, not anyOf"))

        var item = goodItem.objectValue!
        item["properties"] = ["name": ["type": "string", "uniqueItems": true], "when": ["type": ["string", "null"], "format": "date-ish"]]
        let problems = StrictSchemaLint.problems(in: schema(item: .object(item)))
        #expect(problems.count == 2)
        #expect(problems.contains { $0.hasPrefix("$.properties.items.items.properties.name.uniqueItems:") })
        #expect(problems.contains { $0.hasPrefix("$.properties.items.items.properties.when.format:") })
    }

    /// String caps are enforced locally: the lint accepts them on strings only, and the wire schema drops them.
    @Test func lengthCapsAreLocalAndStrippedFromTheWireSchema() {
        var item = goodItem.objectValue!
        item["properties"] = ["name": ["type": "string", "minLength": 1, "maxLength": 200], "when": ["type": ["string", "null"]]]
        let capped = schema(item: .object(item))
        #expect(StrictSchemaLint.problems(in: capped).isEmpty)
        item["properties"] = ["name": ["type": "integer", "maxLength": 2], "when": ["type": ["string", "null"]]]
        #expect(StrictSchemaLint.problems(in: schema(item: .object(item))).contains { $0.contains("maxLength applies to strings only") })
        let wire = StrictSchemaLint.wireSchema(capped)
        #expect(!wire.serialized().contains("Length"))
        #expect(wire["properties"]?["items"]?["items"]?["properties"]?["name"] == ["type": "string"])
    }

    /// `maxItems` is checked locally and left out of OpenAI's wire schema (which the prompts' fingerprints hash); a
    /// server that builds a grammar gets every cap (`boundedWireSchema`), with or without annotations.
    @Test func itemCapsAreLocalForOpenAIAndSentToGrammarServers() {
        var item = goodItem.objectValue!
        item["properties"] = ["name": ["type": "string", "maxLength": 200, "description": "Name."], "when": ["type": ["string", "null"]]]
        var root = schema(item: .object(item)).objectValue!
        root["properties"] = ["items": ["type": "array", "maxItems": 5, "minItems": 1, "items": .object(item)]]
        let capped = JSONValue.object(root)
        #expect(StrictSchemaLint.problems(in: capped).isEmpty)
        let wire = StrictSchemaLint.wireSchema(capped)
        #expect(wire["properties"]?["items"]?["maxItems"] == nil)
        #expect(wire["properties"]?["items"]?["minItems"] == 1, "minItems stays on OpenAI's wire, as before")
        let bounded = StrictSchemaLint.boundedWireSchema(capped, compact: true)
        #expect(bounded["properties"]?["items"]?["maxItems"] == 5)
        #expect(bounded["properties"]?["items"]?["items"]?["properties"]?["name"] == ["type": "string", "maxLength": 200])
        #expect(StrictSchemaLint.boundedWireSchema(capped, compact: false) == capped)
    }

    /// The extractors' wire schema drops annotations on every schema node, but not a property that is called `description`.
    @Test func theCompactWireSchemaDropsDescriptionsButKeepsAPropertyNamedDescription() {
        let annotated: JSONValue = [
            "type": "object", "description": "Events.", "additionalProperties": false, "required": ["description"],
            "properties": ["description": ["type": "string", "description": "One sentence.", "title": "Details", "maxLength": 9]],
        ]
        let wire = StrictSchemaLint.compactWireSchema(annotated)
        #expect(wire == ["type": "object", "additionalProperties": false, "required": ["description"],
                         "properties": ["description": ["type": "string"]]])
        #expect(StrictSchemaLint.wireSchema(annotated)["description"] == "Events.", "the assistant's wire schema keeps them")
    }

    @Test func checksRefsAndNesting() {
        var root = schema(item: ["$ref": "#/$defs/Missing"]).objectValue!
        root["$defs"] = ["Item": goodItem]
        #expect(StrictSchemaLint.problems(in: .object(root)).contains { $0.contains("does not resolve") })
        root["properties"] = ["items": ["type": "array", "items": ["$ref": "#/$defs/Item"]]]
        #expect(StrictSchemaLint.problems(in: .object(root)) == [])

        var deep: JSONValue = ["type": "object", "properties": [:], "required": [], "additionalProperties": false]
        for _ in 0..<10 {
            deep = ["type": "object", "properties": ["x": deep], "required": ["x"], "additionalProperties": false]
        }
        #expect(StrictSchemaLint.problems(in: deep).count == 1)
        #expect(StrictSchemaLint.problems(in: deep).first?.contains("nested 11 deep") == true)
    }

    @Test func checksEnumLimits() {
        let values = (0..<1001).map { JSONValue.string("v\($0)") }
        let problems = StrictSchemaLint.problems(in: schema(item: ["type": "string", "enum": .array(values)]))
        #expect(problems.contains("$: 1001 enum values in total (limit 1000)"))
        let bad = StrictSchemaLint.problems(in: schema(item: ["type": ["string", "integer"]]))
        #expect(bad.count == 1 && bad[0].hasPrefix("$.properties.items.items.type:"))
    }
}

@Suite("Schema file lint")
struct SchemaFileLintTests {
    @Test func reportsFileLineAndPath() throws {
        let dir = try temporaryDirectory([
            "good.json": tinySchema,
            "skip.json": "not json",
            "loose.json": """
                {
                  "type": "object",
                  "properties": {
                    "a": {"type": "string"}
                  },
                  "required": []
                }
                """,
        ])
        let result = SchemaFileLint.lintDirectory(dir, skipping: ["skip.json"])
        #expect(result.files == 2)
        let lines = result.problems.map { "\(URL(fileURLWithPath: $0.file).lastPathComponent):\($0.line)" }
        #expect(lines == ["loose.json:1", "loose.json:4"])
        #expect(result.problems.last?.message.hasPrefix("$.properties.a: property 'a' is not in required") == true)
    }

    @Test func reportsInvalidJSONWithItsLine() throws {
        let dir = try temporaryDirectory(["broken.json": "{\n  \"type\": \"object\",\n  oops\n}"])
        let problems = SchemaFileLint.lintDirectory(dir).problems
        #expect(problems.count == 1)
        #expect(problems.first?.line == 3)
        #expect(problems.first?.message.hasPrefix("not valid JSON") == true)
    }
}
