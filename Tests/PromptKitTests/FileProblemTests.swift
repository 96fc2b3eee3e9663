import Testing
import Core

/// `FileProblem` is the one located problem of every loader; each prints as that loader's problem printed before.
@Suite("File problems")
struct FileProblemTests {
    @Test func printsFileLineColumnAndFieldAsTheLoadersDid() {
        // A YAML syntax error, with and without a column, and one without a position.
        #expect("\(FileProblem(file: "prompts/x.yaml", line: 3, column: 5, message: "YAML syntax: bad"))" == "prompts/x.yaml:3:5: YAML syntax: bad")
        #expect("\(FileProblem(file: "prompts/x.yaml", line: 3, message: "duplicate key"))" == "prompts/x.yaml:3: duplicate key")
        #expect("\(FileProblem(file: "prompts/x.yaml", line: 0, column: 7, message: "YAML: empty"))" == "prompts/x.yaml: YAML: empty")
        // A fixture's field, located and not.
        #expect("\(FileProblem(file: "f.yaml", line: 7, field: "messages[0].sender", message: "unknown"))" == "f.yaml:7: messages[0].sender: unknown")
        #expect("\(FileProblem(file: "f.yaml", line: 0, field: "id", message: "duplicate"))" == "f.yaml: id: duplicate")
        // A predictions line.
        #expect("\(FileProblem(file: "p.jsonl", line: 2, message: "unknown fixture 'x'"))" == "p.jsonl:2: unknown fixture 'x'")
    }

    @Test func comparesByEveryPart() {
        let problem = FileProblem(file: "a.yaml", line: 1, message: "m")
        #expect(problem == FileProblem(file: "a.yaml", line: 1, column: 0, field: "", message: "m"))
        #expect(problem != FileProblem(file: "a.yaml", line: 2, message: "m"))
        #expect(problem != FileProblem(file: "a.yaml", line: 1, field: "id", message: "m"))
    }

    @Test func yamlParseErrorsAreFileProblems() {
        let error = #expect(throws: FileProblem.self) { try YAMLJSON.parse("a: [1, 2\n", file: "broken.yaml") }
        #expect(error?.file == "broken.yaml")
        #expect(error?.line ?? 0 > 0)
        #expect(error?.description.hasPrefix("broken.yaml:") == true)
    }
}
