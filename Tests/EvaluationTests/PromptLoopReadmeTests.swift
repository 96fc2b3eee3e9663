import Extractors
import Foundation
import JobsKit
import PromptKit
import TestSupport
import Testing
import Evaluation

/// The README's prompt iteration loop, run as written: every command of its `sh` block, in order, in a copy of the
/// repository, with the debug binary on PATH and a scripted model behind OPENAI_BASE_URL.
@Suite("README prompt loop", .serialized)
struct PromptLoopReadmeTests {
    /// The words the README's step 2 adds to calendar_events@5's combined_rule.
    static let edit = "only asked about"

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
        // A model that takes the README's new sentence too far: shown it, it lists no calendar events at all. So the
        // eval figures move only if the edit of calendar_events@5 reaches the requests eval sends.
        let answers = LabelledAnswers(fixtures)
        var strict = answers
        strict.emptyFeatures = ["calendar_events"]
        let server = try FakeOpenAIServer { [answers, strict] request in
            let system = request.json?["messages"]?[0]?["content"]?.stringValue ?? ""
            return system.contains(Self.edit) ? strict.reply(request) : answers.reply(request)
        }
        defer { server.stop() }
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let env = ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": EvalTestSupport.apiKey, "LOG_LEVEL": "error",
                   "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        func render() async throws -> String {
            let script = "cd '\(root.path)' && MESSAGEAI_HOME=$PWD messageai-jobs prompts render --prompt combined --fixture class-picnic"
            let child = try SpawnedProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], adding: env)
            let end = try await child.waitForExit(timeout: 120)
            #expect(end.code == 0, "\(child.stderr)")
            return child.stdout
        }
        let combinedBefore = try await render()
        #expect(!combinedBefore.contains(Self.edit))
        // Each line runs in its own shell, after the block's `export` lines so far, as in the one shell a reader types into.
        var exports: [String] = []
        var greps: [String] = []
        for command in commands {
            if command.hasPrefix("export ") { exports.append(command) }
            let script = (["set -e", "cd '\(root.path)'"] + exports + [command]).joined(separator: "\n")
            let child = try SpawnedProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], adding: env)
            let end = try await child.waitForExit(timeout: 300)
            #expect(end.code == 0, "`\(command)` exited \(end.code): \(child.stderr)")
            if command.contains("render --prompt calendar_events@5") { #expect(child.stdout.contains("\"model\"")) }
            if command.contains("grep -c") { greps.append(child.stdout) }
            if command.hasPrefix("messageai-jobs prompts diff") {
                #expect(child.stdout.contains("+- calendar_events: ") && child.stdout.contains(Self.edit), "\(child.stdout)")
            }
        }
        // The edit reached the combined request: with version 4 picked for one run, then for good once the pin moved.
        #expect(greps == ["1\n", "1\n"], "\(greps)")
        let combinedAfter = try await render()
        #expect(combinedAfter != combinedBefore && combinedAfter.contains(Self.edit))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/gate/report.html").path))
        let baseline = try EvalReport.load(path: root.appendingPathComponent("out/baseline/report.json").path)
        #expect(baseline.variants.map(\.id) == ["llm", "llm-compare", "rules"])
        let library = try PromptLibrary.load(directory: root.appendingPathComponent("prompts"))
        // Both variants ask every feature in one combined request (the default mode) with the pinned combined prompt;
        // the compare variant's carries calendar_events@5's rule, so its text (hash) differs and so do its figures.
        let mainVariant = try #require(baseline.main), compareVariant = try #require(baseline.variants.first { $0.id == "llm-compare" })
        let main = mainVariant.prompts[.calendarEvents], compared = compareVariant.prompts[.calendarEvents]
        #expect(main?.id == "combined" && main?.version == library.active(id: "combined")?.version, "eval scores the pinned set by default: \(String(describing: main))")
        #expect(compared?.id == "combined" && compared?.version == main?.version && compared?.sha256 != main?.sha256,
                "the compare variant makes the same kind of request, with the new rule: \(String(describing: compared))")
        #expect(compareVariant.label.contains("calendar_events@5"), "\(compareVariant.label)")
        let before = mainVariant.score.features[.calendarEvents]?.metrics.f1 ?? 0
        let after = compareVariant.score.features[.calendarEvents]?.metrics.f1 ?? 1
        #expect(before > 0.9 && after < before, "calendar events F1 \(before) → \(after): the edit must move the figures")
        #expect(compareVariant.score.micro.f1 < mainVariant.score.micro.f1)
        #expect(library.active(id: "calendar_events")?.version == 5, "the last step moved the pin")
    }
}
