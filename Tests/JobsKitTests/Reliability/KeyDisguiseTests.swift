import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import TestSupport
import Testing
import JobsCLI

/// A server that echoes the API key in every disguise (upper case, `\u002d`, percent and HTML escapes, full-width,
/// zero-width, swapped separators) into answers, errors and the assistant's replies gets it into no sink: the whole
/// database as `pg_dump` writes it, every line the binary prints or logs at debug level, and every eval report and
/// cache file (issue 47 item 3). The sinks are read with `KeyDisguises.revealed`, the test's own reader.
@Suite("Reliability: the key in every disguise")
struct KeyDisguiseTests {
    static let apiKey = KeyDisguises.apiKey

    /// An answer carrying every disguise of the key it was sent: in an event's title, description and (as raw JSON
    /// escapes that parse to the key itself) its location, and in a priority message's reason.
    static func echoingAnswer(_ request: RecordedRequest, key: String) -> ScriptedReply {
        let lines = ScanRequests.messageLines(request)
        guard let newest = lines.last?["id"] else { return .error(status: 400, message: "no <messages> block") }
        let evidence = JSONValue.string(String((lines.last?["text"]?.stringValue ?? "").prefix(40)))
        let echo = KeyDisguises.echo(key)
        switch ScanRequests.feature(request) {
        case "calendar_events":
            let answer: JSONValue = ["events": [[
                "title": .string("Echo " + key.uppercased()), "date": "2026-03-10", "time": nil, "end_time": nil, "location": "RAW-ESCAPED",
                "description": .string(echo), "category": "other", "confidence": 0.7, "date_phrase": nil,
                "evidence": evidence, "source_message_ids": [newest],
            ]]]
            let content = answer.serialized().replacingOccurrences(of: "RAW-ESCAPED", with: KeyDisguises.jsonEscaped(key))
            return .chat(content: content, usage: FakeUsage(prompt: 100, completion: 20))
        case "priority_messages":
            let answer: JSONValue = ["messages": [["message_id": newest, "priority": "high", "reason": .string("Key: " + echo),
                                                   "action_required": false, "evidence": evidence]]]
            return .chat(content: answer.serialized(), usage: FakeUsage(prompt: 100, completion: 20))
        default:
            return .chat(content: CombinedSchema.emptyAnswer(ScanRequests.schema(of: ScanRequests.feature(request), request)).serialized())
        }
    }

    static func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let leak = KeyDisguises.leak(in: text) {
            Issue.record("\(what) holds the key in disguise: …\(leak)…", sourceLocation: sourceLocation)
        }
    }

    @Test("scan, extract, the worker, assist, runs show, requests show and eval: no disguise in pg_dump, logs or reports")
    func noDisguiseReachesAnySink() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 3, seed: 147)
            try await ScanHarness.load(workload, into: db)
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let victim = workload.conversations[0]
            let server = try FakeOpenAIServer { request in
                let auth = request.header("authorization") ?? "none"
                let key = auth.hasPrefix("Bearer ") ? String(auth.dropFirst(7)) : auth
                let feature = ScanRequests.feature(request)
                if !SecretLeakTests.extractorFeatures.contains(feature) {
                    return .error(status: 401, message: "Incorrect API key provided: \(KeyDisguises.echo(key))")
                }
                if ScanRequests.conversation(request) == victim.name, feature == "decisions" {
                    return .error(status: 400, message: "invalid key \(KeyDisguises.echo(key))")
                }
                return Self.echoingAnswer(request, key: key)
            }
            defer { server.stop() }
            var outputs: [(String, String)] = []
            func run(_ arguments: [String]) async throws -> SpawnedProcess.Termination {
                var environment = Reliability.environment(databaseURL: db.connectionURL, server: server.baseURL, apiKey: Self.apiKey)
                environment["LOG_LEVEL"] = "debug"
                environment["MESSAGEAI_REQUEST_MODE"] = "per-feature"
                let result = try await SpawnedProcess.run(Reliability.executable, arguments: arguments, environment: environment, timeout: 120)
                outputs.append((arguments.prefix(2).joined(separator: " "), result.stdout + "\n" + result.stderr))
                return result.termination
            }
            let prompts = ["--prompts", Reliability.promptsURL.path]

            #expect(try await run(["scan", "--provider", "openai", "--no-prefilter"] + prompts) == .exit(2), "the victim failed")
            #expect(try await run(["extract", "--provider", "openai", "--json", "--conversation", workload.conversations[1].id.uuidString] + prompts) == .exit(0))
            #expect(try await run(["requests", "extract", "--conversation", DemoDataset.conversationIDs.birthday.uuidString]) == .exit(0))
            #expect(try await run(["worker", "--once", "--provider", "openai"] + prompts) == .exit(0))
            _ = try await run(["assist", "--user", DemoDataset.userIDs.maria.uuidString] + prompts)

            let report = FileManager.default.temporaryDirectory.appendingPathComponent("key-disguise-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: report) }
            _ = try await run(["eval", "--provider", "openai", "--fixtures",
                               RepositoryPaths.root.appendingPathComponent("evals/fixtures/class-picnic.yaml").path,
                               "--report", report.appendingPathComponent("out").path,
                               "--cache-dir", report.appendingPathComponent("cache").path] + prompts)

            // What an operator reads back: every run and every request, shown.
            let runIDs = try await db.pool.query("SELECT id::text AS id FROM job_runs").map { try $0.decode("id", as: String.self) }
            #expect(runIDs.count >= 5)
            for id in runIDs { _ = try await run(["runs", "show", id]) }
            let requestIDs = try await db.pool.query("SELECT id FROM job_requests").map { try $0.decode("id", as: Int64.self) }
            #expect(!requestIDs.isEmpty)
            for id in requestIDs { _ = try await run(["requests", "show", "\(id)"]) }
            _ = try await run(["runs", "--json"])

            for (what, text) in outputs { Self.expectClean(text, what) }
            let shown = outputs.map(\.1).joined(separator: "\n")
            #expect(shown.contains(SecretScrubbing.replacement), "the echoes reached the output, redacted")

            let dump = try await SpawnedProcess.run(URL(fileURLWithPath: "/usr/bin/pg_dump"),
                                                    arguments: ["--schema", db.schema, "--no-owner", db.connectionURL],
                                                    environment: SpawnedProcess.inheritedEnvironment(), timeout: 120)
            #expect(dump.termination == .exit(0), "\(dump.stderr)")
            #expect(dump.stdout.contains("priority_messages") && dump.stdout.contains(SecretScrubbing.replacement), "the dump holds the redacted rows")
            Self.expectClean(dump.stdout, "pg_dump")
            // assistant_runs is in the dump too; the assistant's run failed on the 401 here, so it may have no row.
            for table in ["job_runs", "scan_watermarks", "job_requests", "job_request_attempts", "agent_traces", "priority_messages"] {
                let rows: Int = try await db.pool.query("SELECT count(*) AS n FROM \(table)")[0].decode("n")
                #expect(rows > 0, "\(table) has rows, so the dump's check covered it")
            }

            let files = try Reliability.files(under: report)
            for file in files { Self.expectClean(file.text, file.name) }
            #expect(files.count >= 3, "the eval wrote its report and cache")
            // The server really got (and so could echo) the key: the redaction is what kept it out.
            #expect(server.requests.contains { $0.header("authorization") == "Bearer \(Self.apiKey)" })
        }
    }

    @Test("the test's reader sees through every disguise, so a clean verdict means something")
    func theReaderFindsEveryDisguise() {
        for disguise in KeyDisguises.all(Self.apiKey) + [KeyDisguises.jsonEscaped(Self.apiKey)] {
            #expect(KeyDisguises.leak(in: "text " + disguise + " more") != nil, "\(disguise)")
            #expect(!SecretText.contains("unrelated-secret-value", in: disguise))
            #expect(SecretText.contains(Self.apiKey, in: "text " + disguise + " more"), "the scrubber finds \(disguise)")
        }
        #expect(KeyDisguises.leak(in: "sk-proj-[redacted]-echo, Bearer [redacted]") == nil)
    }
}
