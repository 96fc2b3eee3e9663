import Foundation
import Core
import Testing
@testable import PromptKit
import TestSupport

@Suite("Prompt library")
struct PromptLibraryTests {
    @Test func loadsTheRealPromptsDirectory() throws {
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let ids = Set(library.all.map(\.id))
        #expect(ids == ["calendar_events", "decisions", "priority_messages", "rsvps", "deadlines", "combined", "assistant"])
        for prompt in library.all {
            #expect(prompt.outputSchema != nil, "\(prompt.id) has no output schema")
            #expect(Set(prompt.usedVariables).isSubset(of: Set(prompt.variables)))
        }
        for id in ids where id != "assistant" {
            #expect(library.latest(id: id)?.examples.count == 1, "\(id) should have one few-shot example")
        }
    }

    @Test func realSchemasPassStrictLint() throws {
        let directory = RepositoryPaths.root.appendingPathComponent("schemas")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".schema.json") && !["eval-fixture.schema.json", "eval-nights-fixture.schema.json"].contains($0) }
        #expect(names.count >= 6)
        for name in names {
            let schema = try JSONValue.parse(Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(StrictSchemaLint.problems(in: schema) == [], "\(name)")
        }
    }

    @Test func realExamplesMatchTheirSchemasShape() throws {
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let calendar = try #require(library.latest(id: "calendar_events"))
        let event = try #require(calendar.examples.first?.output["events"]?[0])
        // Date- and time-like YAML scalars must have stayed strings.
        #expect(event["date"] == .string("2026-03-05"))
        #expect(event["time"] == .string("17:30"))
        #expect(event["source_message_ids"] == .array(["m1"]))
    }

    @Test func latestPicksTheHighestVersion() throws {
        let dir = try temporaryDirectory([
            "schemas/tiny.json": tinySchema,
            "p/demo.yaml": promptYAML(version: 3).replacingOccurrences(of: "schemas/", with: "../schemas/"),
            "p/demo.v10.yaml": promptYAML(version: 10).replacingOccurrences(of: "schemas/", with: "../schemas/"),
            "p/demo.v4.yaml": promptYAML(version: 4).replacingOccurrences(of: "schemas/", with: "../schemas/"),
            "p/active.yaml": "demo: 4\n",
        ])
        let library = try PromptLibrary.load(directory: dir.appendingPathComponent("p"))
        #expect(library.latest(id: "demo")?.version == 10)
        #expect(library.active(id: "demo")?.version == 4, "runs use the pinned version, not the newest")
        #expect(library.prompt(id: "demo", version: 4)?.sourceFile.hasSuffix("demo.v4.yaml") == true)
        #expect(library.prompt(id: "demo", version: 5) == nil)
        #expect(library.latest(id: "missing") == nil)
        #expect(library.all.map(\.version) == [3, 4, 10])
    }

    /// Loads one broken file next to a valid schema and returns the problems.
    private func problems(
        _ yaml: String, extraFiles: [String: String] = [:],
        validator: PromptLibrary.ExampleValidator? = PromptLibrary.jsonSchemaValidator
    ) throws -> [FileProblem] {
        var files = ["schemas/tiny.json": tinySchema, "bad.yaml": yaml]
        files.merge(extraFiles) { $1 }
        let dir = try temporaryDirectory(files)
        do {
            _ = try PromptLibrary.load(directory: dir, validateExample: validator)
            Issue.record("loading should have failed")
            return []
        } catch {
            #expect(error.description == error.problems.map(\.description).joined(separator: "\n"))
            return error.problems
        }
    }

    @Test func unknownVariableNamesTheTemplateLine() throws {
        let yaml = promptYAML().replacingOccurrences(of: "Be brief.", with: "Be brief by {{todya}}.")
        let found = try problems(yaml)
        #expect(found.count == 1)
        let problem = try #require(found.first)
        #expect(problem.file.hasSuffix("bad.yaml"))
        #expect(problem.line == 10)  // `system: |` is line 8; "Be brief" is its second line
        #expect(problem.message.contains("'{{todya}}'") && problem.message.contains("declared: messages, today"))
    }

    @Test func variableOutsideTheAllowedSetIsReported() throws {
        let yaml = promptYAML().replacingOccurrences(of: "[messages, today]", with: "[messages, today, secret]")
        let found = try problems(yaml)
        #expect(found.map(\.line) == [7])
        #expect(found.first?.message.contains("'secret'") == true)
    }

    @Test func unknownTopLevelKeyIsReportedAtItsLine() throws {
        let found = try problems(promptYAML(extra: "temprature: 0.5"))
        #expect(found.count == 1)
        #expect(found.first?.line == 15)
        #expect(found.first?.message.contains("unknown key 'temprature'") == true)
    }

    @Test func missingSchemaFileIsReported() throws {
        let yaml = promptYAML().replacingOccurrences(of: "schemas/tiny.json", with: "schemas/nope.json")
        let found = try problems(yaml)
        #expect(found.map(\.line) == [6])
        #expect(found.first?.message.contains("not found") == true)
    }

    @Test func schemaThatIsNotJSONIsReported() throws {
        let found = try problems(promptYAML(), extraFiles: ["schemas/tiny.json": "{\"type\": "])
        #expect(found.map(\.line) == [6])
        #expect(found.first?.message.contains("not valid JSON") == true)
    }

    @Test func wrongTypesAreReportedTogether() throws {
        let yaml = promptYAML()
            .replacingOccurrences(of: "version: 1", with: "version: 0")
            .replacingOccurrences(of: "temperature: 0,", with: "temperature: 3,")
            .replacingOccurrences(of: "model: test-model", with: "model: [a, b]")
        let found = try problems(yaml)
        #expect(found.map(\.line).sorted() == [2, 4, 5])
        #expect(found.contains { $0.message.contains("positive integer") })
        #expect(found.contains { $0.message.contains("0...2") })
        #expect(found.contains { $0.message.contains("'model' must be a string") })
    }

    @Test func duplicateIdAndVersionIsReported() throws {
        let dir = try temporaryDirectory([
            "schemas/tiny.json": tinySchema,
            "a.yaml": promptYAML(),
            "b.yaml": promptYAML(),
        ])
        #expect {
            _ = try PromptLibrary.load(directory: dir)
        } throws: { error in
            guard let error = error as? PromptLoadError, let problem = error.problems.first else { return false }
            return error.problems.count == 1 && problem.file.hasSuffix("b.yaml") && problem.line == 2
                && problem.message.contains("duplicate prompt id 'demo' version 1") && problem.message.contains("a.yaml")
        }
    }

    @Test func yamlSyntaxErrorIsReportedWithLine() throws {
        let yaml = promptYAML().replacingOccurrences(of: "variables: [messages, today]", with: "variables: [messages, today")
        let found = try problems(yaml)
        #expect(found.count == 1)
        #expect((found.first?.line ?? 0) >= 7)
        #expect(found.first?.message.contains("YAML") == true)
    }

    @Test func problemsFromSeveralFilesAreCollected() throws {
        let dir = try temporaryDirectory([
            "schemas/tiny.json": tinySchema,
            "a.yaml": promptYAML(extra: "oops: 1"),
            "b.yaml": "id: [",
            "c.yaml": promptYAML(id: "other"),
        ])
        #expect {
            _ = try PromptLibrary.load(directory: dir)
        } throws: { error in
            let files = (error as? PromptLoadError)?.problems.map { URL(fileURLWithPath: $0.file).lastPathComponent }
            return files == ["a.yaml", "b.yaml"]
        }
    }

    @Test func exampleOutputsAreCheckedForShapeWithoutAValidator() throws {
        let yaml = promptYAML(extra: """
            examples:
              - input: hi
                output: {items: [a], extra: 1}
              - input: hi
                output: [not, an, object]
            """)
        let found = try problems(yaml, validator: nil)
        #expect(found.map(\.line) == [17, 19])
        #expect(found[0].message.contains("examples[0].output.extra"))
        #expect(found[1].message.contains("must be a mapping"))
    }

    @Test func exampleOutputsAreValidatedAgainstTheSchemaByDefault() throws {
        let yaml = promptYAML(extra: """
            examples:
              - input: hi
                output:
                  items:
                    - ok
                    - 17:30
                    - 42
            """)
        let found = try problems(yaml)
        #expect(found.count == 1)
        #expect(found.first?.line == 21)
        #expect(found.first?.message.contains("examples[0].output.items[2]") == true)
    }

    @Test func exampleValidatorIsUsedWhenGiven() throws {
        let yaml = promptYAML(extra: """
            examples:
              - input: hi
                output:
                  items: [a, 7]
            """)
        let dir = try temporaryDirectory(["schemas/tiny.json": tinySchema, "bad.yaml": yaml])
        #expect {
            _ = try PromptLibrary.load(directory: dir) { _, instance in
                instance["items"]?[1] == .integer(7) ? [JSONValidationError(path: "$.items[1]", keyword: "type", message: "expected string")] : []
            }
        } throws: { error in
            guard let problem = (error as? PromptLoadError)?.problems.first else { return false }
            return problem.line == 18 && problem.message.contains("examples[0].output.items[1]: expected string")
        }
    }
}
