import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// The CLI given bad input: each case ends with a message on stderr that says what is wrong and where, a non-zero
/// exit, and the database as it was.
@Suite("Reliability: bad input to the CLI")
struct BadInputTests {
    /// What a case may change in the database: nothing, or only the record of its own failed run.
    enum Footprint: Sendable { case nothing, failedRunRecord }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        /// Expected on stderr, each.
        let expected: [String]
        var database: DatabaseKind = .test
        var model: ModelKind = .none
        var footprint: Footprint = .nothing
        /// Settings added to the child's environment.
        var settings: [String: String] = [:]
        /// The exit status when it matters: 75 for an outage of the model server or the database.
        var status: Int32? = nil

        var testDescription: String { name }
    }

    enum DatabaseKind: Sendable { case test, unreachable }
    enum ModelKind: Sendable { case none, fake, unreachable }

    static let unknown = "7d5c2f1e-0000-4000-8000-00000000abcd"
    static let birthday = DemoDataset.conversationIDs.birthday.uuidString.lowercased()
    static var prompts: [String] { ["--prompts", Reliability.promptsURL.path] }

    static let cases: [Case] = [
        Case(name: "unknown subcommand", arguments: ["scna"], expected: ["scna"]),
        Case(name: "unknown option", arguments: ["scan", "--concurency", "2"], expected: ["--concurency"]),
        Case(name: "concurrency out of range", arguments: ["scan", "--concurrency", "0"], expected: ["--concurrency must be between 1 and 64"]),
        Case(name: "bad shard", arguments: ["scan", "--shard", "3/2"], expected: ["shard '3/2'", "0 <= i < N"]),
        Case(name: "unknown feature", arguments: ["scan", "--features", "calendar_events,horoscopes"], expected: ["horoscopes"]),
        Case(name: "lease too short", arguments: ["scan", "--lease-seconds", "5"], expected: ["--lease-seconds must be between 30 and 86400"]),
        Case(name: "window of zero tokens", arguments: ["scan", "--window-tokens", "0"], expected: ["--window-tokens must be between 1000 and 1000000"]),
        Case(name: "limit of zero", arguments: ["scan", "--limit", "0"], expected: ["--limit must be at least 1"]),
        Case(name: "too much context", arguments: ["scan", "--context-messages", "501"], expected: ["--context-messages must be between 0 and 500"]),
        Case(name: "eval window of zero tokens", arguments: ["eval", "--window-tokens", "0"], expected: ["--window-tokens must be between 1000 and 1000000"]),
        Case(name: "unknown provider", arguments: ["scan", "--provider", "gpt5"], expected: ["gpt5"]),
        Case(name: "malformed conversation id", arguments: ["extract", "--conversation", "not-a-uuid"], expected: ["The value 'not-a-uuid' is invalid for '--conversation"]),
        Case(name: "unknown conversation", arguments: ["extract", "--provider", "rules", "--conversation", unknown] + prompts,
             expected: ["no conversation with id \(unknown)"]),
        Case(name: "malformed user id", arguments: ["assist", "--user", "not-a-user"], expected: ["The value 'not-a-user' is invalid for '--user"]),
        // Hex digits are an id's first characters (issue 48: one id rule), looked up like every prefix.
        Case(name: "unknown user prefix", arguments: ["assist", "--show", "--user", "12345"], expected: ["no user id starts with '12345' in users"]),
        Case(name: "unknown user", arguments: ["assist", "--user", unknown] + prompts, expected: ["no user with id \(unknown)"], model: .fake),
        Case(name: "request for an unknown conversation", arguments: ["request", "extract", "--conversation", unknown],
             expected: ["no conversation with id \(unknown)"]),
        Case(name: "request with a malformed user id", arguments: ["request", "assist", "--user", "zzz"], expected: ["The value 'zzz' is invalid for '--user"]),
        Case(name: "openai without configuration", arguments: ["extract", "--provider", "openai", "--conversation", birthday] + prompts,
             expected: ["no LLM is configured", "OPENAI_API_KEY"], status: 64),
        Case(name: "missing prompt directory", arguments: ["extract", "--provider", "rules", "--conversation", birthday, "--prompts", "/nonexistent/prompts"],
             expected: ["prompt directory '/nonexistent/prompts' not found"], status: 64),
        Case(name: "unreachable database (scan)", arguments: ["scan", "--provider", "rules"] + prompts, expected: ["could not connect", "127.0.0.1"],
             database: .unreachable, status: 75),
        Case(name: "unreachable database (worker --once)", arguments: ["worker", "--provider", "rules", "--once"] + prompts,
             expected: ["could not connect", "127.0.0.1"], database: .unreachable, status: 75),
        Case(name: "unreachable database (request)", arguments: ["request", "extract", "--conversation", birthday], expected: ["could not connect"],
             database: .unreachable, status: 75),
        Case(name: "unreachable model server (extract)", arguments: ["extract", "--provider", "openai", "--conversation", birthday] + prompts,
             expected: ["LLM"], model: .unreachable, footprint: .failedRunRecord, status: 75),
        Case(name: "unreachable model server (assist)", arguments: ["assist", "--user", DemoDataset.userIDs.maria.uuidString] + prompts,
             expected: ["LLM"], model: .unreachable, footprint: .failedRunRecord),
        Case(name: "bad request mode setting (scan)", arguments: ["scan", "--provider", "rules"] + prompts,
             expected: ["MESSAGEAI_REQUEST_MODE='five-at-once' is not valid: expected combined or per-feature"],
             settings: ["MESSAGEAI_REQUEST_MODE": "five-at-once"], status: 64),
        Case(name: "bad request mode setting (worker)", arguments: ["worker", "--provider", "rules", "--once"] + prompts,
             expected: ["MESSAGEAI_REQUEST_MODE='perfeature'"], settings: ["MESSAGEAI_REQUEST_MODE": "perfeature"]),
        Case(name: "both request modes", arguments: ["extract", "--combined", "--per-feature", "--conversation", birthday] + prompts,
             expected: ["--combined and --per-feature: pick one"]),
        Case(name: "eval compared with its own mode", arguments: ["eval", "--provider", "rules", "--compare", "combined"],
             expected: ["--compare combined: this run already makes combined requests"]),
        Case(name: "eval compared with its own mode (per-feature)", arguments: ["eval", "--provider", "rules", "--compare", "per-feature"],
             expected: ["--compare per-feature: this run already makes per-feature requests"],
             settings: ["MESSAGEAI_REQUEST_MODE": "per-feature"]),
    ]

    static func environment(_ test: Case, db: TestDatabase, server: FakeOpenAIServer) throws -> [String: String] {
        let database: String = switch test.database {
        case .test: db.connectionURL
        case .unreachable: "postgresql://postgres@127.0.0.1:\(try FreePort.find())/messageai"
        }
        var environment = Reliability.environment(databaseURL: database, server: nil)
        switch test.model {
        case .none: break
        case .fake: environment["OPENAI_BASE_URL"] = server.baseURL.absoluteString
        case .unreachable: environment["OPENAI_BASE_URL"] = "http://127.0.0.1:\(try FreePort.find())/v1"
        }
        environment.merge(test.settings) { _, setting in setting }
        return environment
    }

    @Test("a clear message, a non-zero exit, and the database unchanged", arguments: cases)
    func badInputIsRefusedCleanly(_ test: Case) async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let bookkeeping: Set<String> = test.footprint == .failedRunRecord ? ["job_runs", "agent_traces", "assistant_findings", "assistant_runs"] : []
            let before = try await Reliability.tableCounts(db, excluding: bookkeeping)
            let beforeRows = try await Reliability.outcome(db.pool)

            let result = try await SpawnedProcess.run(Reliability.executable, arguments: test.arguments,
                                                    environment: try Self.environment(test, db: db, server: server), timeout: 60)

            #expect(result.termination != .exit(0), "stdout: \(result.stdout)")
            if let status = test.status { #expect(result.termination == .exit(status), "stderr: \(result.stderr.suffix(1500))") }
            if case .signal = result.termination { Issue.record("crashed: \(result.termination); stderr: \(result.stderr)") }
            for expected in test.expected {
                #expect(result.stderr.contains(expected), "stderr lacks '\(expected)': \(result.stderr.suffix(1500))")
            }
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"), "\(result.stderr)")
            #expect(try await Reliability.tableCounts(db, excluding: bookkeeping) == before)
            #expect(try await Reliability.outcome(db.pool) == beforeRows)
            #expect(server.requests.isEmpty, "nothing was asked of the model")
            if test.footprint == .failedRunRecord {
                let runs = try await db.pool.query("SELECT status, error FROM job_runs")
                #expect(try runs.allSatisfy { try $0.decode("status", as: String.self) == "failed" })
            }
        }
    }

    @Test("an unreachable model server stops the scan (exit 75, the outage named) but loses nothing and blames no one: the watermarks and failure counts stay")
    func scanWithUnreachableModel() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let before = try await Reliability.aiRows(db.pool)
            var environment = Reliability.environment(databaseURL: db.connectionURL, server: nil)
            let server = "http://127.0.0.1:\(try FreePort.find())/v1"
            environment["OPENAI_BASE_URL"] = server
            let result = try await SpawnedProcess.run(Reliability.executable, arguments: ["scan", "--provider", "openai", "--no-prefilter", "--json"] + Self.prompts,
                                                    environment: environment, timeout: 90)
            #expect(result.termination == .exit(ExitStatus.outage), "\(result.stderr)")
            let summary = try JSONValue.parse(Data(result.stdout.utf8))
            #expect(summary["conversations"]?.integerValue == 0)
            // Deferred once the breaker is open; a conversation whose own requests failed just before it opened fails
            // in this run, not counted toward quarantine.
            let failed = summary["failed"]?.integerValue ?? -1, deferred = summary["deferred"]?.integerValue ?? -1
            #expect(failed + deferred == 4 && deferred >= 1, "\(summary)")
            #expect(summary["outage"]?.stringValue?.contains(server) == true, "\(summary)")
            // The outage decides the record whatever else failed or passed (conversations, the proactive pass):
            // `failed` with the outage as its error, never main's `partial` for a failed pass.
            let run = try await db.pool.query("SELECT status, error FROM job_runs WHERE kind = 'scan'")
            #expect(run.count == 1)
            #expect(try run.first?.decode("status", as: String.self) == "failed")
            #expect(try run.first?.decode("error", as: String?.self)?.contains(server) == true)
            // The AI rows are exactly as before, no watermark moved and no quarantine streak started.
            #expect(try await Reliability.aiRows(db.pool) == before)
            let moved: Int = try await db.pool.query("SELECT count(*) AS n FROM scan_watermarks WHERE last_message_at IS NOT NULL")[0].decode("n")
            #expect(moved == 0)
            let counts = try await db.pool.query(
                "SELECT COALESCE(sum(failures), 0)::int AS failures, COALESCE(sum(same_failures), 0)::int AS same FROM scan_watermarks")[0]
            #expect(try counts.decode("failures", as: Int.self) == Int(failed))
            #expect(try counts.decode("same", as: Int.self) == 0)
        }
    }

    @Test("a broken prompt file is named with its line, and nothing runs")
    func brokenPromptFile() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("broken-prompts-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: root) }
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for folder in ["prompts", "schemas"] {
                try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
            }
            let file = root.appendingPathComponent("prompts/deadlines.yaml")
            try "id: deadlines\nversion: 1\nmodel: gpt-4o-mini\nparameters: {temperature: 0, seed: 7\nsystem: |\n  Find deadlines.\n"
                .write(to: file, atomically: true, encoding: .utf8)
            let before = try await Reliability.tableCounts(db)

            let result = try await SpawnedProcess.run(
                Reliability.executable, arguments: ["scan", "--provider", "rules", "--prompts", root.appendingPathComponent("prompts").path],
                environment: Reliability.environment(databaseURL: db.connectionURL, server: nil), timeout: 60)

            #expect(result.termination != .exit(0))
            #expect(result.stderr.contains("deadlines.yaml:"), "the file and line are named: \(result.stderr)")
            #expect(try await Reliability.tableCounts(db) == before)
        }
    }
}
