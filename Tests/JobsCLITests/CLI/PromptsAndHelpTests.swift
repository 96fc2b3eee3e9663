import Core
import Foundation
import TestSupport
import Testing

/// Issue 48 item 8 through the built binary: `eval --help` shows `eval run`'s options, completion scripts are written
/// as docs/operations.md says, `prompts list` marks the pinned versions and `prompts diff` compares two versions.
@Suite("prompts list/diff, eval --help and completion")
struct PromptsAndHelpTests {
    struct Finished {
        let code: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], home: URL = RepositoryPaths.root) async throws -> Finished {
        let child = try SpawnedProcess(ScanHarness.executable, arguments: arguments,
                                       adding: ["MESSAGEAI_HOME": home.path, "MESSAGEAI_PROMPT_VERSIONS": "", "COLUMNS": "80"],
                                       directory: FileManager.default.temporaryDirectory)
        defer { child.kill() }
        let status = try await child.waitForExit(timeout: 60)
        return Finished(code: status.code, stdout: child.stdout, stderr: child.stderr)
    }

    @Test func evalHelpShowsTheOptionsOfItsDefaultSubcommand() async throws {
        for arguments in [["eval", "--help"], ["eval", "-h"], ["help", "eval"], ["eval", "--per-feature", "--help"]] {
            let help = try await Self.run(arguments)
            #expect(help.code == 0, "\(arguments): \(help.stderr)")
            for option in ["--compare", "--fail-under", "--baseline", "--export-requests", "--provider"] {
                #expect(help.stdout.contains(option), "\(arguments) shows no \(option)")
            }
            #expect(help.stdout.contains("SUBCOMMANDS:") && help.stdout.contains("  score"), "\(arguments)")
            #expect(help.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
        }
        // The subcommands' own help is untouched.
        let score = try await Self.run(["eval", "score", "--help"])
        #expect(score.code == 0 && score.stdout.contains("--predictions") && !score.stdout.contains("--compare"))
    }

    @Test func completionScriptsAreWrittenAsDocumented() async throws {
        let operations = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        for shell in ["bash", "zsh", "fish"] {
            #expect(operations.contains("messageai-jobs --generate-completion-script \(shell)"))
            let script = try await Self.run(["--generate-completion-script", shell])
            #expect(script.code == 0, "\(shell): \(script.stderr)")
            for word in ["quarantine", "prompts", "fail-under"] { #expect(script.stdout.contains(word), "\(shell) completes no \(word)") }
        }
    }

    @Test func promptsListMarksThePinnedVersion() async throws {
        let listed = try await Self.run(["prompts", "list"])
        #expect(listed.code == 0, "\(listed.stderr)")
        let active = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("prompts/active.yaml"), encoding: .utf8)
        let pins = active.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        #expect(pins.count >= 6)
        let rows = listed.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.contains { $0.starts(with: ["ID", "VERSION", "PINNED"]) })
        for (id, version) in pins {
            let marked = rows.filter { $0.first == id && $0.count > 2 && $0[2] == "pinned" }
            #expect(marked.map { $0[1] } == [version], "\(id): pinned \(version), marked \(marked.map { $0[1] })")
        }
        struct Listing: Decodable { struct Row: Decodable { let id: String; let version: Int; let pinned: Bool }; let prompts: [Row] }
        let json = try JSONDecoder().decode(Listing.self, from: Data(try await Self.run(["prompts", "list", "--json"]).stdout.utf8))
        #expect(json.prompts.filter(\.pinned).count == Set(json.prompts.map(\.id)).count, "one pinned version per prompt")
    }

    @Test func promptsDiffShowsBothRequestModesAndRefusesUnknownVersions() async throws {
        // calendar_events 1 and 2 differ in their own request; version 1 has no combined_rule, version 2 states the
        // built-in one, so the combined request is the same for both.
        let diff = try await Self.run(["prompts", "diff", "calendar_events@1", "calendar_events@2", "--fixture", "class-picnic"])
        #expect(diff.code == 0, "\(diff.stderr)")
        #expect(diff.stdout.hasPrefix("--- calendar_events@1 (calendar_events request, fixture class-picnic)\n+++ calendar_events@2"), "\(diff.stdout.prefix(300))")
        #expect(diff.stdout.contains("\n@@ -") && diff.stdout.contains("\n-") && diff.stdout.contains("\n+"))
        #expect(diff.stdout.contains("combined request: no difference between calendar_events@1 and calendar_events@2"), "\(diff.stdout.suffix(300))")
        let combined = try await Self.run(["prompts", "diff", "combined@2", "combined", "--fixture", "class-picnic"])
        #expect(combined.code == 0 && combined.stdout.contains("+++ combined@7 (combined request"), "\(combined.stderr)")

        let unknown = try await Self.run(["prompts", "diff", "calendar_events@1", "calendar_events@9", "--fixture", "class-picnic"])
        #expect(unknown.code == 64 && unknown.stderr.contains("'calendar_events@9': no such prompt version (calendar_events has 1, 2, 3, 4)"), "\(unknown.stderr)")
        let other = try await Self.run(["prompts", "diff", "calendar_events@1", "rsvps@1", "--fixture", "class-picnic"])
        #expect(other.code == 64 && other.stderr.contains("are different prompts"), "\(other.stderr)")
        let nonsense = try await Self.run(["prompts", "diff", "nonsense@1", "nonsense@2", "--fixture", "class-picnic"])
        #expect(nonsense.code == 64 && nonsense.stderr.contains("not an extractor prompt or `combined`"), "\(nonsense.stderr)")
    }
}
