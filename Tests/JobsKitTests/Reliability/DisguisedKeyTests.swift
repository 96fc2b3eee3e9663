import AgentRuntime
import JobsKit
import Extractors
import Foundation
import Core
import TestSupport
import Testing

/// A server that echoes the API key with a zero-width space after its 4th character (it reads as the key to anyone,
/// but a verbatim search misses it) gets it into no row, no `extract` output, no eval report and no log line
/// (issue 35 item 7).
@Suite("Reliability: a disguised key")
struct DisguisedKeyTests {
    static let apiKey = KeyScrubbingTests.apiKey

    /// `Bearer sk-t\u{200B}est-…`: the header as the server got it, disguised.
    static func disguised(_ request: RecordedRequest) -> String {
        let auth = request.header("authorization") ?? "none"
        let key = auth.hasPrefix("Bearer ") ? String(auth.dropFirst(7)) : auth
        return "Bearer " + String(key.prefix(4)) + "\u{200B}" + String(key.dropFirst(4))
    }

    /// Clean once format characters are removed: what a reader of the text would see.
    static func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        KeyScrubbingTests.expectClean(SecretText.normalized(text), what, sourceLocation: sourceLocation)
    }

    @Test("scan: schema-valid answers echoing the disguised key store rows without it")
    func rowsHoldNoDisguisedKey() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3, seed: 72)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { KeyScrubbingTests.echoingAnswer($0, auth: Self.disguised($0)) }
            defer { server.stop() }
            let client = Reliability.client(server, apiKey: Self.apiKey)
            let engine = try ExtractionEngine(prompts: try Reliability.prompts(),
                                              provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema))
            let summary = try await Reliability.scan(db, engine) { $0.preFilter = false }
            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(summary.rowsInserted > 0)
            let rows = try await SecretLeakTests.everyRow(db)
            Self.expectClean(rows, "the database")
            #expect(rows.contains(SecretScrubbing.replacement), "the echoed key was stored redacted")
        }
    }

    @Test("extract, eval and scan -v through the binary: no disguised key in output, logs, rows or report files")
    func outputsReportsAndLogsHoldNoDisguisedKey() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3, seed: 76)
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[0]
            // Answers echo the key in their items; the victim's requests are refused with the key in the error body.
            let server = try FakeOpenAIServer { request in
                if ScanRequests.conversation(request) == victim.name, ScanRequests.feature(request) == "decisions" {
                    return .error(status: 400, message: "invalid key \(Self.disguised(request)) for this request")
                }
                return KeyScrubbingTests.echoingAnswer(request, auth: Self.disguised(request))
            }
            defer { server.stop() }
            func run(_ arguments: [String]) async throws -> (SpawnedProcess.Termination, String) {
                var environment = Reliability.environment(databaseURL: db.connectionURL, server: server.baseURL, apiKey: Self.apiKey)
                environment["LOG_LEVEL"] = nil
                let result = try await SpawnedProcess.run(Reliability.executable, arguments: arguments, environment: environment, timeout: 120)
                return (result.termination, result.stdout + "\n" + result.stderr)
            }
            // Per-feature requests (`--per-feature`): the fake model refuses one feature of the victim, which a combined request would hide.
            let prompts = ["--prompts", Reliability.promptsURL.path]
            let extract = try await run(["extract", "-v", "--provider", "openai", "--per-feature", "--json", "--conversation", workload.conversations[1].id.uuidString] + prompts)
            #expect(extract.0 == .exit(0), "\(extract.1.suffix(2000))")
            #expect(extract.1.contains(SecretScrubbing.replacement), "the echo reached the output, redacted")
            Self.expectClean(extract.1, "extract's output")

            let scan = try await run(["scan", "-v", "--provider", "openai", "--per-feature", "--no-prefilter"] + prompts)
            #expect(scan.0 != .exit(0), "the victim failed")
            #expect(scan.1.contains("HTTP 400"))
            Self.expectClean(scan.1, "scan's output and logs")

            let report = FileManager.default.temporaryDirectory.appendingPathComponent("disguised-report-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: report) }
            let eval = try await run(["eval", "-v", "--provider", "openai", "--fixtures",
                                      RepositoryPaths.root.appendingPathComponent("evals/fixtures/class-picnic.yaml").path,
                                      "--report", report.appendingPathComponent("out").path,
                                      "--cache-dir", report.appendingPathComponent("cache").path] + prompts)
            Self.expectClean(eval.1, "eval's output")
            let files = try Reliability.files(under: report)
            for file in files { Self.expectClean(file.text, file.name) }
            #expect(files.count >= 3, "the eval wrote its report and cache")

            Self.expectClean(try await SecretLeakTests.everyRow(db), "the database")
            #expect(server.requests.contains { $0.header("authorization") == "Bearer \(Self.apiKey)" })
        }
    }

    @Test("log lines redact a disguised key and database password")
    func logLinesRedactDisguisedSecrets() {
        let secrets = LogSecrets()
        secrets.add("sk-test-ECHOED-0987654321")
        secrets.add("hunter2-SECRET")
        let line = secrets.redact("key sk-t\u{200B}est-ECHOED-0987654321, password hun\u{2060}ter2-SECRET, url postgres://u:x@h/db")
        #expect(line == "key [redacted], password [redacted], url postgres://u:***@h/db", "\(line)")
        // Issue 47: upper-cased or escaped, and a key read from a file with its final newline.
        secrets.add("sk-test-FROMFILE-5566778899\n")
        let disguised = secrets.redact("SK-TEST-ECHOED-0987654321 sk\\u002dtest-FROMFILE-5566778899 ｈｕｎｔｅｒ２-secret")
        #expect(disguised == "[redacted] [redacted] [redacted]", "\(disguised)")
    }
}
