import Extractors
import Foundation
import JobsKit
import PromptKit
import TestSupport
import Testing

/// The README's prompt iteration loop, run as written: every command of its `sh` block, in order, in a copy of the
/// repository, with the debug binary on PATH and a scripted model behind OPENAI_BASE_URL.
@Suite("README prompt loop", .serialized)
struct PromptLoopReadmeTests {
    /// The non-comment lines of the first ```sh block under `### The prompt iteration loop`.
    static func loopCommands() throws -> [String] {
        let readme = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "### The prompt iteration loop") else { throw EvalRunError("README: no prompt loop section") }
        let rest = readme[section.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "```") else {
            throw EvalRunError("README: the prompt loop has no sh block")
        }
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }

    @Test func everyCommandRunsAsWritten() async throws {
        let commands = try Self.loopCommands()
        #expect(commands.count >= 6, "\(commands)")
        #expect(commands.filter { $0.hasPrefix("messageai-jobs ") }.count >= 4)

        let root = try EvalTestSupport.temporaryDirectory("readme-loop")
        for folder in ["prompts", "schemas", "evals"] {
            try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
        }
        let fixtures = try EvalTestSupport.realFixtures()
        let server = try FakeOpenAIServer { [answers = LabelledAnswers(fixtures)] in answers.reply($0) }
        defer { server.stop() }
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let env = ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": EvalTestSupport.apiKey, "LOG_LEVEL": "error",
                   "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        // Each line runs in its own shell, after the block's `export` lines so far, as in the one shell a reader types into.
        var exports: [String] = []
        for command in commands {
            if command.hasPrefix("export ") { exports.append(command) }
            let script = (["set -e", "cd '\(root.path)'"] + exports + [command]).joined(separator: "\n")
            let child = try SpawnedProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], adding: env)
            let end = try await child.waitForExit(timeout: 300)
            #expect(end.code == 0, "`\(command)` exited \(end.code): \(child.stderr)")
            if command.contains("render --prompt calendar_events@3") { #expect(child.stdout.contains("\"model\"")) }
        }
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/gate/report.html").path))
        let baseline = try EvalReport.load(path: root.appendingPathComponent("out/baseline/report.json").path)
        #expect(baseline.variants.map(\.id) == ["llm", "llm-compare", "rules"])
        let library = try PromptLibrary.load(directory: root.appendingPathComponent("prompts"))
        // The main variant asks every feature in one combined request (the default mode), with the pinned combined
        // prompt; the compare variant asks calendar events alone, with version 3.
        let main = baseline.main?.prompts[.calendarEvents], compared = baseline.variants.first { $0.id == "llm-compare" }?.prompts[.calendarEvents]
        #expect(main?.id == "combined" && main?.version == library.active(id: "combined")?.version, "eval scores the pinned set by default: \(String(describing: main))")
        #expect(compared?.id == "calendar_events" && compared?.version == 3, "\(String(describing: compared))")
        #expect(library.active(id: "calendar_events")?.version == 3, "the last step moved the pin")
    }
}
