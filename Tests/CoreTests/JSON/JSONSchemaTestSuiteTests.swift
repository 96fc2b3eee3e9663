import Foundation
import Core
import Testing

/// Runs the official JSON-Schema-Test-Suite (draft 2020-12) for every keyword `JSONSchema` claims.
@Suite struct JSONSchemaTestSuiteTests {
    /// Suite files under tests/draft2020-12 whose every case must pass, except those in `skipList`.
    static let claimedFiles = [
        "type.json", "enum.json", "const.json",
        "properties.json", "required.json", "additionalProperties.json", "patternProperties.json",
        "propertyNames.json", "minProperties.json", "maxProperties.json", "dependentRequired.json", "dependentSchemas.json",
        "items.json", "prefixItems.json", "minItems.json", "maxItems.json", "uniqueItems.json",
        "contains.json", "minContains.json", "maxContains.json",
        "minLength.json", "maxLength.json", "pattern.json",
        "minimum.json", "maximum.json", "exclusiveMinimum.json", "exclusiveMaximum.json", "multipleOf.json",
        "anyOf.json", "allOf.json", "oneOf.json", "not.json", "if-then-else.json",
        "ref.json", "defs.json", "anchor.json", "boolean_schema.json", "infinite-loop-detection.json",
        "optional/format/date.json", "optional/format/time.json", "optional/format/date-time.json",
    ]

    struct Skip: Hashable, CustomStringConvertible {
        let file: String
        let group: String
        let test: String
        let reason: String
        var description: String { "\(file) / \(group) / \(test)" }
    }

    /// Cases that need features deliberately left out (see the doc comment on `JSONSchema`). Each entry must exist.
    static let skipList: [Skip] = [
        Skip(file: "ref.json", group: "remote ref, containing refs itself", test: "remote ref valid",
             reason: "$ref to the 2020-12 meta-schema URL: remote references are never fetched"),
        Skip(file: "ref.json", group: "remote ref, containing refs itself", test: "remote ref invalid",
             reason: "$ref to the 2020-12 meta-schema URL: remote references are never fetched"),
        Skip(file: "defs.json", group: "validate definition against metaschema", test: "valid definition schema",
             reason: "$ref to the 2020-12 meta-schema URL: remote references are never fetched"),
        Skip(file: "defs.json", group: "validate definition against metaschema", test: "invalid definition schema",
             reason: "$ref to the 2020-12 meta-schema URL: remote references are never fetched"),
        Skip(file: "ref.json", group: "ref creates new scope when adjacent to keywords",
             test: "referenced subschema doesn't see annotations from properties",
             reason: "needs unevaluatedProperties (annotation collection), not supported"),
        Skip(file: "not.json", group: "collect annotations inside a 'not', even if collection is disabled",
             test: "unevaluated property", reason: "needs unevaluatedProperties (annotation collection), not supported"),
    ]

    static let maxSkipped = 8

    static func isSkipped(file: String, group: String, test: String) -> Bool {
        skipList.contains { $0.file == file && $0.group == group && $0.test == test }
    }

    static func loadFile(_ file: String) throws -> [JSONValue] {
        let document = try SharedFixtures.loadJSON(SharedFixtures.testSuiteDirectory.appendingPathComponent(file))
        return try #require(document.arrayValue, "\(file) is not an array of test groups")
    }

    @Test(arguments: claimedFiles)
    func suiteFile(_ file: String) throws {
        let groups = try Self.loadFile(file)
        var checked = 0
        var skipped = 0
        var total = 0
        for group in groups {
            let groupName = group["description"]?.stringValue ?? "?"
            let tests = group["tests"]?.arrayValue ?? []
            let runnable = tests.filter { !Self.isSkipped(file: file, group: groupName, test: $0["description"]?.stringValue ?? "?") }
            total += tests.count
            skipped += tests.count - runnable.count
            guard !runnable.isEmpty else { continue }
            let schema: JSONSchema
            do {
                schema = try JSONSchema(try #require(group["schema"]))
            } catch {
                Issue.record("\(file) / \(groupName): schema failed to compile: \(error)")
                continue
            }
            for test in runnable {
                let name = test["description"]?.stringValue ?? "?"
                let data = try #require(test["data"])
                let expected = try #require(test["valid"]?.boolValue as Bool?)
                let verdict = schema.isValid(data)
                let errors = schema.validate(data)
                #expect(verdict == expected, "\(file) / \(groupName) / \(name): expected \(expected ? "valid" : "invalid"), errors: \(errors)")
                #expect(errors.isEmpty == verdict, "\(file) / \(groupName) / \(name): validate() and isValid() disagree")
                checked += 1
            }
        }
        #expect(total > 0, "\(file) has no cases")
        #expect(checked + skipped == total, "\(file): \(total) cases, \(checked) checked, \(skipped) skipped")
    }

    @Test func everySkipEntryExistsInTheSuite() throws {
        for skip in Self.skipList {
            let groups = try Self.loadFile(skip.file)
            let group = groups.first { $0["description"]?.stringValue == skip.group }
            let test = group?["tests"]?.arrayValue?.first { $0["description"]?.stringValue == skip.test }
            #expect(test != nil, "skip list entry not found in the suite: \(skip)")
            #expect(Self.claimedFiles.contains(skip.file), "skip list entry for an unclaimed file: \(skip)")
            #expect(!skip.reason.isEmpty, "skip list entry without a reason: \(skip)")
        }
        #expect(Set(Self.skipList).count == Self.skipList.count, "duplicate skip list entries")
        #expect(Self.skipList.count <= Self.maxSkipped, "\(Self.skipList.count) skipped cases; at most \(Self.maxSkipped) allowed")
    }
}
