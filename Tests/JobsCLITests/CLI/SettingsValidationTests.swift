import Foundation
import TestSupport
import Testing

/// Every environment variable the binary reads is checked before a command does anything: a bad value stops it (exit
/// 64) with an error naming the variable and the values it takes, and no job_runs row is written (issue 35 item 6).
/// Run on the built binary, as a deployment sets them.
@Suite(.serialized) struct SettingsValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let value: String
        /// What the error must say besides the variable's name (its valid values).
        let says: String
        var testDescription: String { "\(name)=\(value)" }
    }

    static let bad: [Case] = [
        Case(name: "DATABASE_URL", value: "host=localhost port", says: "libpq connection string"),
        Case(name: "DATABASE_LOCK_TIMEOUT", value: "abc", says: "number of seconds"),
        Case(name: "DATABASE_STATEMENT_TIMEOUT", value: "-5", says: "number of seconds"),
        Case(name: "OPENAI_BASE_URL", value: "ftp://127.0.0.1/v1", says: "http(s) URL"),
        Case(name: "OPENAI_STRUCTURED_OUTPUT", value: "json-object", says: "json_schema or json_object"),
        Case(name: "OPENAI_STRUCTURED_OUTPUT", value: "xml", says: "json_schema or json_object"),
        Case(name: "OPENAI_STRUCTURED_OUTPUT", value: "JSON_OBJECT", says: "json_schema or json_object"),
        Case(name: "OPENAI_MAX_TOKENS_FIELD", value: "max-tokens", says: "max_completion_tokens or max_tokens"),
        Case(name: "OPENAI_TIMEOUT_SECONDS", value: "soon", says: "a number of seconds, 1 to 3600"),
        Case(name: "OPENAI_MAX_CONCURRENCY", value: "0", says: "a whole number, 1 to 1024"),
        Case(name: "OPENAI_RETRY_BUDGET_SECONDS", value: "forever", says: "a number of seconds, 1 to 86400"),
        Case(name: "OPENAI_TOOLS_WITH_SCHEMA", value: "maybe", says: "true or false"),
        Case(name: "OPENAI_SCHEMA_BOUNDS", value: "sometimes", says: "true or false"),
        Case(name: "OPENAI_NAMED_TOOL_CHOICE", value: "2", says: "true or false"),
        Case(name: "OPENAI_RPM", value: "lots", says: "positive integer"),
        Case(name: "OPENAI_TPM", value: "-1", says: "positive integer"),
        Case(name: "LOG_LEVEL", value: "verbose", says: "trace, debug, info"),
        Case(name: "LOG_FORMAT", value: "xml", says: "text or json"),
        Case(name: "MESSAGEAI_HOME", value: "/nonexistent-messageai-home", says: "a folder holding prompts/ and schemas/"),
        Case(name: "MESSAGEAI_PROMPT_VERSIONS", value: "calendar_events", says: "id=N"),
        Case(name: "MESSAGEAI_TIMEZONE", value: "Mars/Base", says: "IANA time zone name"),
        Case(name: "MESSAGEAI_RUN_LEASE_SECONDS", value: "abc", says: "whole seconds, 2 to 86400"),
        Case(name: "MESSAGEAI_DEADLINE_DAYS", value: "a week", says: "whole days, 0 to 60"),
        Case(name: "MESSAGEAI_DEADLINE_DAYS", value: "61", says: "whole days, 0 to 60"),
        Case(name: "JOB_COMPLETION_INDEX", value: "first", says: "a whole number, 0 or more"),
    ]

    @Test(arguments: bad)
    func aBadValueStopsTheCommandNamingTheVariable(_ setting: Case) async throws {
        try await TestDatabase.with { db in
            let result = try await JobsBinary.isolated(["scan", "--provider", "rules", "--prompts", ScanHarness.promptsPath], db, extra: [setting.name: setting.value])
            #expect(result.termination == .exit(64), "\(result.stderr)")
            #expect(result.stderr.contains(setting.name), "\(result.stderr)")
            #expect(result.stderr.contains(setting.says), "\(result.stderr)")
            // One wording for every variable (issue 48 item 5).
            let secret = ["DATABASE_URL", "OPENAI_BASE_URL"].contains(setting.name)  // not echoed
            #expect(result.stderr.contains("Error: \(setting.name)" + (secret ? "" : "='\(setting.value)'") + " is not valid: expected "),
                    "\(result.stderr)")
            let runs: Int = try await db.pool.query("SELECT count(*) AS n FROM job_runs")[0].decode("n")
            #expect(runs == 0, "nothing ran")
        }
    }

    @Test("the database URL and the key are never echoed in a settings error")
    func secretsAreNotEchoed() async throws {
        let url = try await JobsBinary.isolated(["dates", "--help"], nil, extra: ["DATABASE_URL": "postgresql://u:hunter2-pass word@h/db ?x"])
        // --help exits before validation; a command does not.
        #expect(url.termination == .exit(0))
        let bad = try await JobsBinary.isolated(["runs"], nil, extra: ["DATABASE_URL": "host=h password=hunter2-SECRET port"])
        #expect(bad.termination == .exit(64), "\(bad.stderr)")
        #expect(bad.stderr.contains("DATABASE_URL") && !bad.stderr.contains("hunter2"), "\(bad.stderr)")
        #expect(bad.stderr.contains("messageai-jobs settings"), "the error points to the table")
        let base = try await JobsBinary.isolated(["runs"], nil, extra: ["OPENAI_BASE_URL": "mailto:sk-live-SECRET-1234567890"])
        #expect(base.termination == .exit(64) && base.stderr.contains("OPENAI_BASE_URL") && !base.stderr.contains("1234567890"), "\(base.stderr)")
        // A key a header cannot carry (issue 47 item 3): refused before anything is sent, and not printed.
        let key = try await JobsBinary.isolated(["runs"], nil, extra: ["OPENAI_API_KEY": "sk-live-LINE-1234567890\r\nX-Injected: yes"])
        #expect(key.termination == .exit(64) && key.stderr.contains("OPENAI_API_KEY") && !key.stderr.contains("1234567890"), "\(key.stderr)")
    }

    @Test("valid values in every spelling the table allows pass; an empty variable counts as unset")
    func validValuesPass() async throws {
        try await TestDatabase.with { db in
            let good = [
                "OPENAI_STRUCTURED_OUTPUT": "json_object", "OPENAI_MAX_TOKENS_FIELD": "max_tokens", "OPENAI_TOOLS_WITH_SCHEMA": "yes",
                "OPENAI_SCHEMA_BOUNDS": "0", "OPENAI_NAMED_TOOL_CHOICE": "FALSE", "OPENAI_TIMEOUT_SECONDS": "2.5", "OPENAI_RPM": "60",
                "LOG_LEVEL": "ERROR", "LOG_FORMAT": "", "MESSAGEAI_RUN_LEASE_SECONDS": "30", "MESSAGEAI_TIMEZONE": "Asia/Tokyo",
                "MESSAGEAI_PROMPT_VERSIONS": "", "DATABASE_LOCK_TIMEOUT": "0", "JOB_COMPLETION_INDEX": "0",
                "MESSAGEAI_HOME": RepositoryPaths.root.path,
            ]
            let result = try await JobsBinary.isolated(["runs"], db, extra: good)
            #expect(result.termination == .exit(0), "\(result.stderr)")
        }
    }

    struct Row: Decodable { let name: String; let values: String; let `default`: String; let flag: String? }

    @Test("`settings` lists every variable the tests check, with values and defaults; the README's table names each")
    func oneTableListsThemAll() async throws {
        let result = try await JobsBinary.isolated(["settings", "--json"], nil, extra: [:])
        #expect(result.termination == .exit(0), "\(result.stderr)")
        let rows = try JSONDecoder().decode([Row].self, from: Data(result.stdout.utf8))
        let names = Set(rows.map(\.name))
        #expect(names.isSuperset(of: Self.bad.map(\.name)), "untested: \(Set(Self.bad.map(\.name)).symmetricDifference(names))")
        #expect(names.isSuperset(of: ["OPENAI_API_KEY", "OPENAI_MODEL", "PGPASSWORD"]))
        #expect(rows.allSatisfy { !$0.values.isEmpty && !$0.default.isEmpty })
        #expect(rows.first { $0.name == "OPENAI_TIMEOUT_SECONDS" }?.flag == "--llm-timeout")
        let readme = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        for name in names { #expect(readme.contains("`\(name)`"), "README's configuration table lacks \(name)") }
        let text = try await JobsBinary.isolated(["settings"], nil, extra: [:])
        #expect(text.stdout.contains("OPENAI_STRUCTURED_OUTPUT = json_schema  (default)\n    values: json_schema or json_object\n    default: json_schema"))
    }
}
