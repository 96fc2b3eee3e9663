import Foundation
import Core
@testable import JobsKit
import TestSupport
import Testing
import JobsCLI

/// Every hint the binary prints is true (issue 38): each test provokes the hint, then runs what it suggests and sees
/// it work.
@Suite("CLI hints that a user can follow")
struct HintTests {
    struct Finished {
        let code: Int32
        let stdout: String
        let stderr: String
    }

    /// The binary with no model, database or home of the developer's, plus `environment`, in `directory`.
    static func run(_ arguments: [String], _ environment: [String: String] = [:], in directory: URL? = nil,
                    timeout: Double = 120) async throws -> Finished {
        let base = ["MESSAGEAI_HOME": "", "MESSAGEAI_TIMEZONE": "", "LOG_LEVEL": "error"]
        let child = try SpawnedProcess(ScanHarness.executable, arguments: arguments,
                                       adding: base.merging(environment) { _, new in new }, directory: directory)
        defer { child.kill() }
        let status = try await child.waitForExit(timeout: timeout)
        return Finished(code: status.code, stdout: child.stdout, stderr: child.stderr)
    }

    static var prompts: String { ScanHarness.promptsPath }

    @Test("assist --user without a model names what runs offline, and it runs")
    func assistUserWithoutModel() async throws {
        try await TestDatabase.with { db in
            let env = ["DATABASE_URL": db.connectionURL]
            #expect(try await Self.run(["demo", "load"], env).code == 0)
            let refused = try await Self.run(["assist", "--user", "demo"], env)
            // No model server configured is a configuration error: exit 64, like every other (issue 48 item 5).
            #expect(refused.code == 64, "\(refused.stderr)")
            #expect(!refused.stderr.contains("pass --provider rules"), "assist --user refuses --provider rules: \(refused.stderr)")
            #expect(refused.stderr.contains("assist --all --provider rules") && refused.stderr.contains("assist --show --user ID"))

            let all = try await Self.run(["assist", "--all", "--provider", "rules"], env)
            #expect(all.code == 0, "\(all.stderr)")
            let shown = try await Self.run(["assist", "--show", "--user", "demo"], env)
            #expect(shown.code == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("attention"), "\(shown.stdout)")
        }
    }

    @Test("batch collect without a model server says to configure the batches' server (no --provider rules), and then works")
    func batchCollectWithoutModel() async throws {
        try await TestDatabase.with { db in
            let env = ["DATABASE_URL": db.connectionURL]
            let refused = try await Self.run(["batch", "collect"], env)
            #expect(refused.code == 64, "a configuration error")
            #expect(!refused.stderr.contains("--provider rules"), "batch collect has no --provider: \(refused.stderr)")
            #expect(refused.stderr.contains("OPENAI_BASE_URL") && refused.stderr.contains("submitted to"), "\(refused.stderr)")

            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let configured = try await Self.run(["batch", "collect", "--prompts", Self.prompts],
                                                env.merging(["OPENAI_BASE_URL": server.baseURL.absoluteString]) { _, new in new })
            #expect(configured.code == 0, "\(configured.stderr)")
        }
    }

    @Test("scan --batch against a server without the Batch API says so and suggests a scan without --batch, which works")
    func scanBatchWithoutBatchAPI() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer(fallback: GenericAnswers.reply)
            defer { server.stop() }
            server.batches.remove()
            let env = ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString]
            #expect(try await Self.run(["demo", "load"], env).code == 0)
            let refused = try await Self.run(["scan", "--batch", "--provider", "openai", "--prompts", Self.prompts], env)
            #expect(refused.code != 0)
            #expect(refused.stderr.contains("HTTP 404") && refused.stderr.contains("no Files/Batch API")
                    && refused.stderr.contains("without --batch"), "\(refused.stderr)")

            let scanned = try await Self.run(["scan", "--provider", "openai", "--prompts", Self.prompts, "--no-assist"], env)
            #expect(scanned.code == 0, "\(scanned.stderr)")
        }
    }

    @Test("requests retry on a done request says it once and suggests enqueueing a new one, which works")
    func retryDoneRequest() async throws {
        try await TestDatabase.with { db in
            let env = ["DATABASE_URL": db.connectionURL]
            #expect(try await Self.run(["demo", "load"], env).code == 0)
            let conversation = DemoDataset.conversationIDs.birthday.uuidString.lowercased()
            let enqueued = try await Self.run(["requests", "extract", "--conversation", conversation], env)
            let id = try #require(Int64(enqueued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(enqueued.stderr)")
            try await db.pool.query("UPDATE job_requests SET status = 'done', finished_at = now() WHERE id = $1", [id])

            let refused = try await Self.run(["requests", "retry", "\(id)"], env)
            #expect(refused.code == 1)
            #expect(refused.stderr.components(separatedBy: "it is done").count == 2, "said once: \(refused.stderr)")
            #expect(refused.stderr.contains("requests extract --conversation ID"), "\(refused.stderr)")

            let again = try await Self.run(["requests", "extract", "--conversation", conversation], env)
            #expect(again.code == 0, "\(again.stderr)")
            #expect(Int64(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).map { $0 > id } == true, "\(again.stdout)")
        }
    }

    @Test("eval and prompts render outside the repository point at --fixtures and MESSAGEAI_HOME, and both work")
    func fixturesOutsideTheRepository() async throws {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("hint-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let root = RepositoryPaths.root.path
        let fixtures = RepositoryPaths.root.appendingPathComponent("evals/fixtures").path
        let cache = ["--cache-dir", elsewhere.appendingPathComponent("cache").path]

        let eval = try await Self.run(["eval", "--provider", "rules"] + cache, in: elsewhere)
        #expect(eval.code == 1)
        #expect(eval.stderr.contains("--fixtures") && eval.stderr.contains("MESSAGEAI_HOME"), "\(eval.stderr)")
        #expect(try await Self.run(["eval", "--provider", "rules", "--fixtures", fixtures] + cache, in: elsewhere).code == 0)
        let home = try await Self.run(["eval", "--provider", "rules"] + cache, ["MESSAGEAI_HOME": root], in: elsewhere)
        #expect(home.code == 0, "\(home.stderr)")

        let render = ["prompts", "render", "--prompt", "calendar_events", "--fixture", "class-picnic"]
        let refused = try await Self.run(render, in: elsewhere)
        #expect(refused.code == 1)
        #expect(refused.stderr.contains("--fixtures") && refused.stderr.contains("MESSAGEAI_HOME"), "\(refused.stderr)")
        let rendered = try await Self.run(render + ["--fixtures", fixtures], in: elsewhere)
        #expect(rendered.code == 0, "\(rendered.stderr)")
        #expect(try await Self.run(render, ["MESSAGEAI_HOME": root], in: elsewhere).code == 0)
    }

    @Test("dates needs neither --reference nor --timezone: now, in MESSAGEAI_TIMEZONE or UTC")
    func datesDefaults() async throws {
        let plain = try await Self.run(["dates", "tomorrow at 4pm", "--json"])
        #expect(plain.code == 0, "\(plain.stderr)")
        let start = try #require(try JSONValue.parse(Data(plain.stdout.utf8))["expressions"]?[0]?["start"]?.stringValue)
        #expect(start.hasSuffix("T16:00:00Z") || start.hasSuffix("T16:00:00+00:00"), "UTC by default: \(start)")
        let zoned = try await Self.run(["dates", "tomorrow at 4pm", "--json"], ["MESSAGEAI_TIMEZONE": "America/New_York"])
        let local = try #require(try JSONValue.parse(Data(zoned.stdout.utf8))["expressions"]?[0]?["start"]?.stringValue)
        #expect(local.contains("T16:00:00-0"), "the default zone's 4pm: \(local)")
        let bad = try await Self.run(["dates", "tomorrow", "--timezone", "Mars/Base"])
        #expect(bad.code == 64 && bad.stderr.contains("Mars/Base"))
    }

    @Test("assist --help prints the first tool choice's default as typed: auto")
    func helpDefaults() async throws {
        let help = try await Self.run(["assist", "--help"])
        #expect(help.code == 0)
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("(default: auto)"), "\(help.stdout)")
        #expect(!help.stdout.contains("FirstToolChoice(") && !help.stdout.contains("AgentRuntime."))
    }

    @Test("the scan summary says how many failed conversations it does not list")
    func failedLinesSayHowManyMore() {
        var summary = ScanService.Summary(runID: UUID(), provider: "openai")
        summary.failed = 1_000
        summary.failures = (0..<50).map { _ in ScanService.Failure(conversationID: UUID(), error: "HTTP 400 from the LLM server: bad") }
        let text = ScanReport.text(summary)
        #expect(text.components(separatedBy: "\nFAILED ").count - 1 == 50)
        #expect(text.contains("… 950 more failed conversations (the first 50 are listed)"), "\(text)")
    }

    @Test("every Kubernetes manifest sets LOG_FORMAT=json, as deploy/README.md says")
    func manifestsLogJSON() throws {
        let directory = RepositoryPaths.root.appendingPathComponent("deploy/kubernetes")
        let manifests = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("secret") }
        #expect(manifests.contains("worker-deployment.yaml"))
        for name in manifests {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(flat.contains("- name: LOG_FORMAT value: json"), "\(name) does not set LOG_FORMAT=json")
        }
    }

    @Test("scripts/package --check-only checks the tarball in dist/ with nothing else there (no build folder)")
    func packageCheckOnlyFromDist() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dist-only-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let scripts = root.appendingPathComponent("scripts"), dist = root.appendingPathComponent("dist")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dist, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent("scripts/package"), to: scripts.appendingPathComponent("package"))
        // The bare-machine check itself needs root and a Debian mirror; here it only records what it was given.
        let check = scripts.appendingPathComponent("bare-machine-check")
        try "#!/bin/sh\necho \"checked $1\" >&2\n".write(to: check, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: check.path)
        #if arch(arm64)
        let arch = "aarch64"
        #else
        let arch = "x86_64"
        #endif
        let tarball = dist.appendingPathComponent("messageai-jobs-1.2.3-linux-\(arch).tar.gz")
        try Data("not really a tarball".utf8).write(to: tarball)

        let child = try SpawnedProcess(URL(fileURLWithPath: "/bin/bash"), arguments: [scripts.appendingPathComponent("package").path, "--check-only"],
                                       adding: [:], directory: root)
        let status = try await child.waitForExit(timeout: 60)
        #expect(status.code == 0, "\(child.stderr)")
        #expect(child.stderr.contains("checked \(tarball.path)"), "\(child.stderr)")
        #expect(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tarball.path)
    }
}
