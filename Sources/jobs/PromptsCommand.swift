import ArgumentParser
import JobsKit
import Foundation
import PromptKit
import Core
import Extractors
import JobsCLI

/// `messageai-jobs prompts`: inspect and check the prompt library before anything is sent to a model.
struct PromptsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts",
        abstract: "List and check the YAML prompts and their output schemas.",
        subcommands: [List.self, Lint.self, PromptsRenderCommand.self, PromptsDiffCommand.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every prompt version: id, version, whether it is the one runs use, model, output schema and file.",
            discussion: """
                The first line says which prompt set is in use: the one embedded in this binary, or a directory \
                (--prompts DIR, or $MESSAGEAI_HOME/prompts), with its SHA-256 as recorded in job_runs. PINNED says \
                `pinned` for the version production runs (prompts/active.yaml, after MESSAGEAI_PROMPT_VERSIONS), or \
                `only` for a prompt with a single version; `"pinned": true` in --json.

                Example: messageai-jobs prompts list --json
                """
        )

        @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
        var prompts: String?

        @Flag(help: "Print machine-readable JSON on stdout instead of text.")
        var json = false

        struct Listing: Encodable {
            /// `embedded`, or the directory's path.
            let source: String
            let sha256: String?
            let prompts: [Row]
        }

        struct Row: Encodable {
            let id: String
            let version: Int
            /// The version runs use: pinned in active.yaml (or MESSAGEAI_PROMPT_VERSIONS), or the only one.
            let pinned: Bool
            let model: String
            let outputName: String?
            let schema: String?
            let file: String
        }

        func run() async throws {
            let directory = try ProviderFactory.promptDirectory(prompts, environment: ProcessEnvironment.values)
            var library = try PromptLibrary.load(directory: directory)
            library = try library.pinning(PromptPins.overrides(options: [], environment: ProcessEnvironment.values), source: PromptPins.environmentVariable)
            let rows = library.all.map {
                Row(id: $0.id, version: $0.version, pinned: library.active(id: $0.id)?.version == $0.version, model: $0.model,
                    outputName: $0.outputName, schema: $0.schemaPath, file: $0.sourceFile)
            }
            let versions = Dictionary(grouping: rows, by: \.id).mapValues(\.count)
            let source = ProviderFactory.describe(promptDirectory: directory)
            if json {
                try Console.printJSON(Listing(source: source, sha256: library.fingerprint, prompts: rows))
                return
            }
            Console.print("Prompt set: \(source) (sha256 \(library.fingerprint ?? "-"))")
            let table = [["ID", "VERSION", "PINNED", "MODEL", "SCHEMA", "FILE"]]
                + rows.map { [$0.id, String($0.version), $0.pinned ? (versions[$0.id] == 1 && library.pins.versions[$0.id] == nil ? "only" : "pinned") : "-", $0.model,
                              $0.schema ?? "-", $0.file] }
            let widths = (0..<6).map { column in table.map { $0[column].count }.max() ?? 0 }
            for row in table {
                let cells = row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }
                Console.print(cells.joined(separator: "  "))
            }
        }
    }

    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load every prompt and check every output schema against OpenAI strict-mode rules.",
            discussion: """
                Prints one `file:line: problem` per problem and exits non-zero if there is any. \
                eval-fixture.schema.json and eval-nights-fixture.schema.json are skipped: they describe eval fixtures, not model output.

                Example: messageai-jobs prompts lint --prompts prompts --schemas schemas
                """
        )

        @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
        var prompts: String?

        @Option(help: "Directory of output JSON Schemas (default: schemas beside the prompt folder).")
        var schemas: String?

        func run() async throws {
            var problems: [FileProblem] = []
            var promptCount = 0
            let promptDirectory = try ProviderFactory.promptDirectory(prompts, environment: ProcessEnvironment.values)
            do {
                promptCount = try PromptLibrary.load(directory: promptDirectory).all.count
            } catch {
                problems += error.problems
            }
            // Relative folders are found under MESSAGEAI_HOME too, as for every other command.
            let schemaDirectory = schemas.map { (try? ProviderFactory.promptDirectory($0, environment: ProcessEnvironment.values)) ?? URL(fileURLWithPath: $0) }
                ?? promptDirectory.deletingLastPathComponent().appendingPathComponent("schemas")
            let schemaLint = SchemaFileLint.lintDirectory(schemaDirectory, skipping: ["eval-fixture.schema.json", "eval-nights-fixture.schema.json"])
            problems += schemaLint.problems
            for problem in problems { Console.print(problem.description) }
            guard problems.isEmpty else {
                Console.error("\(problems.count) problem\(problems.count == 1 ? "" : "s")")
                throw ExitCode.failure
            }
            Console.print("\(promptCount) prompts, \(schemaLint.files) schemas OK")
        }
    }
}
