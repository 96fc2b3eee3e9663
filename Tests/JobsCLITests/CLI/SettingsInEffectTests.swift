import Foundation
import TestSupport
import Testing

/// `settings` shows what a command would run with (issue 48 item 5): each variable's value in effect, secrets masked,
/// and where it came from; a bad one makes it exit 64 naming every one. Every configuration error, whatever its
/// source, reads `NAME='value' is not valid: expected ...` and exits 64; `--version` and `--help` always work.
@Suite(.serialized) struct SettingsInEffectTests {
    struct Row: Decodable {
        let name: String
        let value: String
        let source: String
        let problem: String?
    }

    static func rows(_ stdout: String) throws -> [String: Row] {
        let rows = try JSONDecoder().decode([Row].self, from: Data(stdout.utf8))
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0) })
    }

    @Test("each value in effect with its source: environment, flag or default; secrets masked")
    func valuesAndSources() async throws {
        let result = try await JobsBinary.isolated(
            ["settings", "--json", "--llm-timeout", "30", "--per-feature", "--database-url", "postgresql://ops:hunter2-pw@db.internal:5432/app"], nil,
            extra: ["OPENAI_API_KEY": "sk-live-SECRET-0123456789", "OPENAI_MAX_CONCURRENCY": "3", "OPENAI_TIMEOUT_SECONDS": "90"])
        #expect(result.termination == .exit(0), "\(result.stderr)")
        #expect(!result.stdout.contains("hunter2") && !result.stdout.contains("0123456789"), "a secret was printed")
        let rows = try Self.rows(result.stdout)
        #expect(rows["OPENAI_TIMEOUT_SECONDS"]?.source == "flag" && rows["OPENAI_TIMEOUT_SECONDS"]?.value == "30.0")
        #expect(rows["OPENAI_MAX_CONCURRENCY"]?.source == "environment" && rows["OPENAI_MAX_CONCURRENCY"]?.value == "3")
        #expect(rows["MESSAGEAI_REQUEST_MODE"]?.source == "flag" && rows["MESSAGEAI_REQUEST_MODE"]?.value == "per-feature")
        #expect(rows["OPENAI_RETRY_BUDGET_SECONDS"]?.source == "default" && rows["OPENAI_RETRY_BUDGET_SECONDS"]?.value == "180")
        #expect(rows["OPENAI_API_KEY"]?.source == "environment" && rows["OPENAI_API_KEY"]?.value.hasPrefix("****") == true)
        #expect(rows["DATABASE_URL"]?.value == "postgresql://ops:****@db.internal:5432/app", "\(rows["DATABASE_URL"]?.value ?? "-")")
        #expect(rows.values.allSatisfy { $0.problem == nil })
    }

    @Test("bad values: settings still prints the table, names every bad one the one way, and exits 64")
    func everyBadOneNamed() async throws {
        let result = try await JobsBinary.isolated(["settings"], nil, extra: [
            "LOG_LEVEL": "loud", "OPENAI_RPM": "lots", "MESSAGEAI_TIMEZONE": "Mars/Base", "JOB_COMPLETION_INDEX": "first",
            "OPENAI_API_KEY": "sk-live-LINE-1234567890\nX: y",
        ])
        #expect(result.termination == .exit(64), "\(result.stderr)")
        #expect(result.stdout.contains("LOG_LEVEL = loud  (environment)\n    NOT VALID: LOG_LEVEL='loud' is not valid: expected"), "\(result.stdout)")
        for name in ["LOG_LEVEL='loud'", "OPENAI_RPM='lots'", "MESSAGEAI_TIMEZONE='Mars/Base'", "JOB_COMPLETION_INDEX='first'", "OPENAI_API_KEY is not valid"] {
            #expect(result.stderr.contains("Error: \(name)"), "\(name) not named: \(result.stderr)")
        }
        #expect(!(result.stdout + result.stderr).contains("1234567890"), "the key was printed")
    }

    @Test("--version and --help work whatever the environment holds")
    func versionAndHelpAlwaysWork() async throws {
        let version = try await JobsBinary.isolated(["--version"], nil, extra: ["LOG_LEVEL": "bad", "OPENAI_RPM": "x"])
        #expect(version.termination == .exit(0), "\(version.stderr)")
        #expect(version.stdout.hasPrefix("messageai-jobs "), "\(version.stdout)")
        let help = try await JobsBinary.isolated(["scan", "--help"], nil, extra: ["LOG_LEVEL": "bad", "MESSAGEAI_TIMEZONE": "Mars/Base"])
        #expect(help.termination == .exit(0) && help.stdout.contains("--timezone"), "\(help.stderr)")
    }

    @Test("a variable a flag's check reads is named in the one wording, before the flag is looked at")
    func variablesReadByFlags() async throws {
        let zone = try await JobsBinary.isolated(["scan", "--provider", "rules"], nil, extra: ["MESSAGEAI_TIMEZONE": "Mars/Base"])
        #expect(zone.termination == .exit(64) && zone.stderr.hasPrefix("Error: MESSAGEAI_TIMEZONE='Mars/Base' is not valid: expected"), "\(zone.stderr)")
        let index = try await JobsBinary.isolated(["scan", "--provider", "rules", "--shard", "auto/3"], nil, extra: ["JOB_COMPLETION_INDEX": "5"])
        #expect(index.termination == .exit(64), "\(index.stderr)")
        #expect(index.stderr.contains("Error: JOB_COMPLETION_INDEX='5' is not valid: expected a shard index from 0 to 2"), "\(index.stderr)")
    }

    @Test("a pin naming no prompt version, from the variable or the flag, exits 64 naming it")
    func pinsNamingNoVersion() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let base = ["OPENAI_BASE_URL": server.baseURL.absoluteString]
            let conversation = UUID().uuidString
            let variable = try await JobsBinary.isolated(["extract", "--conversation", conversation, "--dry-run"], db,
                                                                 extra: base.merging(["MESSAGEAI_PROMPT_VERSIONS": "calendar_events=99"]) { $1 })
            #expect(variable.termination == .exit(64), "\(variable.stderr)")
            #expect(variable.stderr.contains("Error: MESSAGEAI_PROMPT_VERSIONS='calendar_events=99' is not valid: expected"), "\(variable.stderr)")
            #expect(variable.stderr.contains("no prompt version 99"), "\(variable.stderr)")
            let flag = try await JobsBinary.isolated(["extract", "--conversation", conversation, "--dry-run", "--prompt-version", "decisions=42"], db, extra: base)
            #expect(flag.termination == .exit(64) && flag.stderr.contains("Error: --prompt-version 'decisions=42' is not valid: expected"), "\(flag.stderr)")
            let runs: Int = try await db.pool.query("SELECT count(*) AS n FROM job_runs")[0].decode("n")
            #expect(runs == 0, "nothing ran")
        }
    }
}
