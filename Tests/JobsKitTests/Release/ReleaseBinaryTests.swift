import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import TestSupport
import Testing

/// The binary carries what it needs: migrations, prompts and schemas are compiled in, `--version` names the build
/// and the prompt set, and every `job_runs` row records the same three.
@Suite("Release: embedded resources, --version and job_runs provenance")
struct ReleaseBinaryTests {
    @Test func embeddedMigrationsAreTheSourceTreeFiles() throws {
        for set in ["dev", "service"] {
            let directory = RepositoryPaths.root.appendingPathComponent("Sources/Postgres/Migrations/SQL/\(set)")
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
            let embedded = try MigrationSet.bundled(set)
            #expect(embedded.files.map(\.name) == onDisk)
            for file in embedded.files {
                #expect(file.sql == (try String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)), "\(set)/\(file.name)")
            }
        }
        #expect(try MigrationSet.service().files.contains { $0.name == "080_job_runs_build.sql" })
        let missing = #expect(throws: MigrationError.self) { try MigrationSet.bundled("nonexistent") }
        #expect(missing?.code == .notEmbedded)
        #expect(missing?.description == "no migration set 'nonexistent' is embedded in this binary")
    }

    @Test func embeddedPromptSetIsTheRepositorysAndHashesTheSame() throws {
        let embedded = try PromptLibrary.load(directory: PromptFiles.embeddedPrompts)
        let onDisk = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        #expect(embedded.all.map { "\($0.id)@\($0.version)" } == onDisk.all.map { "\($0.id)@\($0.version)" })
        #expect(embedded.all.allSatisfy { $0.outputSchema == onDisk.prompt(id: $0.id, version: $0.version)?.outputSchema })
        let hash = try #require(embedded.fingerprint)
        #expect(hash.count == 64 && hash.allSatisfy(\.isHexDigit))
        #expect(embedded.fingerprint == onDisk.fingerprint)
        #expect(embedded.all.allSatisfy { $0.sourceFile.hasPrefix("/<embedded>/prompts/") })
    }

    @Test func fingerprintChangesWithAnyPromptOrSchemaByte() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("prompt-set-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for folder in ["prompts", "schemas"] {
            try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: copy.appendingPathComponent(folder))
        }
        let prompts = copy.appendingPathComponent("prompts")
        let original = try PromptLibrary.load(directory: prompts).fingerprint
        #expect(original == (try PromptLibrary.load(directory: PromptFiles.embeddedPrompts).fingerprint))

        let schema = copy.appendingPathComponent("schemas/rsvps.schema.json")
        try (String(contentsOf: schema, encoding: .utf8) + "\n").write(to: schema, atomically: true, encoding: .utf8)
        let schemaEdited = try PromptLibrary.load(directory: prompts).fingerprint
        #expect(schemaEdited != original)

        let prompt = prompts.appendingPathComponent("decisions.yaml")
        try (String(contentsOf: prompt, encoding: .utf8) + "# a comment\n").write(to: prompt, atomically: true, encoding: .utf8)
        let promptEdited = try PromptLibrary.load(directory: prompts).fingerprint
        #expect(promptEdited != schemaEdited && promptEdited != original)
    }

    @Test func oneLookupDirectoryThenHomeThenEmbedded() throws {
        #expect(try ProviderFactory.promptDirectory(nil, environment: [:]) == PromptFiles.embeddedPrompts)
        #expect(ProviderFactory.describe(promptDirectory: PromptFiles.embeddedPrompts) == "embedded")
        let home = RepositoryPaths.root.path
        #expect(try ProviderFactory.promptDirectory(nil, environment: ["MESSAGEAI_HOME": home]).path == home + "/prompts")
        #expect(try ProviderFactory.promptDirectory("prompts", environment: ["MESSAGEAI_HOME": home]).path.hasSuffix("/prompts"))
        let explicit = RepositoryPaths.root.appendingPathComponent("prompts").path
        #expect(try ProviderFactory.promptDirectory(explicit, environment: [:]).path == explicit)

        let missingHome = #expect(throws: ProviderError.self) { try ProviderFactory.promptDirectory(nil, environment: ["MESSAGEAI_HOME": "/nonexistent-home"]) }
        #expect(missingHome?.code == .promptsNotFound)
        #expect("\(missingHome!)".contains("MESSAGEAI_HOME"))
        let missingDirectory = #expect(throws: ProviderError.self) { try ProviderFactory.promptDirectory("/nonexistent-prompts", environment: [:]) }
        #expect(missingDirectory?.code == .promptsNotFound)
        #expect("\(missingDirectory!)".contains("/nonexistent-prompts"))
    }

    @Test func embeddedSetPricesRuns() {
        var usage = TokenUsage()
        usage.promptTokens = 1_000_000
        let cost = RunCost.estimate(usage, model: "gpt-4o-mini", promptDirectory: PromptFiles.embeddedPrompts)
        #expect(cost.usd != nil && cost.usd! > 0, "\(cost.unknownReason ?? "")")
        #expect(cost.pricesAsOf != nil)
    }

    @Test func recorderStampsEveryRunWithTheBuildAndPromptSet() async throws {
        try await TestDatabase.with { db in
            let recorder = JobRunRecorder(pool: db.pool)
            let id = try await recorder.start(.scan, provider: "rules", model: nil, promptSet: String(repeating: "ab", count: 32))
            let row = try await db.pool.query(
                "SELECT build_version, build_commit, prompt_set_sha256 FROM job_runs WHERE id = $1", [id])[0]
            #expect(try row.decode("build_version", as: String.self) == BuildInfo.version)
            #expect(try row.decode("build_commit", as: String.self) == BuildInfo.commit)
            #expect(try row.decode("prompt_set_sha256", as: String.self) == String(repeating: "ab", count: 32))
        }
    }

    /// The binary copied alone to another folder, run from /tmp as an operator would: `--version`, the whole
    /// migrate / demo / scan flow, and the scan's `job_runs` row names the embedded prompt set.
    @Test func binaryCopiedAloneRunsTheOperatorsFlow() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("release-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = folder.appendingPathComponent("messageai-jobs")
        try FileManager.default.copyItem(at: Reliability.executable, to: binary)
        let expected = try #require(try PromptLibrary.load(directory: PromptFiles.embeddedPrompts).fingerprint)

        func run(_ arguments: [String], databaseURL: String? = nil, extra: [String: String] = [:]) async throws
            -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
            var environment = Reliability.environment(databaseURL: databaseURL, server: nil, extra: extra)
            environment["MESSAGEAI_HOME"] = extra["MESSAGEAI_HOME"]
            environment["OPENAI_API_KEY"] = nil
            environment["OPENAI_BASE_URL"] = nil
            return try await SpawnedProcess.run(
                URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "cd /tmp && exec \"$0\" \"$@\"", binary.path] + arguments,
                environment: environment, timeout: 120)
        }

        let version = try await run(["--version"])
        #expect(version.termination == .exit(0), "\(version.stderr)")
        #expect(version.stdout == """
            messageai-jobs \(BuildInfo.version)
            commit: \(BuildInfo.commit)
            prompts: embedded, sha256 \(expected)

            """)
        let fromHome = try await run(["--version"], extra: ["MESSAGEAI_HOME": RepositoryPaths.root.path])
        #expect(fromHome.stdout.contains("prompts: \(RepositoryPaths.root.path)/prompts, sha256 \(expected)"), "\(fromHome.stdout)\(fromHome.stderr)")
        let list = try await run(["prompts", "list"])
        #expect(list.stdout.hasPrefix("Prompt set: embedded (sha256 \(expected))\n"), "\(list.stdout)\(list.stderr)")
        let lint = try await run(["prompts", "lint"])
        #expect(lint.termination == .exit(0) && lint.stdout.contains("schemas OK"), "\(lint.stdout)\(lint.stderr)")

        // A database of its own: `migrate` takes a database-wide advisory lock that the suite's other migrations
        // queue on, and the operator's flow starts from an empty database anyway.
        let base = try TestDatabase.baseConfiguration()
        let name = "messageai_release_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await PostgresConnection.connect(base)
        defer { admin.close() }
        try await admin.query("CREATE DATABASE \(name)")
        do {
            let url = URL(string: base.connectionString)
            try #require(url?.scheme?.hasPrefix("postgres") == true, "DATABASE_URL must be a postgres:// URL for this test")
            let databaseURL = base.connectionString.replacingOccurrences(of: "/" + (url?.lastPathComponent ?? ""), with: "/" + name)
            for step in [["migrate", "--dev"], ["demo", "load"], ["scan", "--provider", "rules"]] {
                let result = try await run(step, databaseURL: databaseURL)
                #expect(result.termination == .exit(0), "\(step): \(result.stderr)")
            }
            let database = try await PostgresConnection.connect(PostgresConfiguration(connectionString: databaseURL))
            defer { database.close() }
            let rows = try await database.query(
                "SELECT build_version, build_commit, prompt_set_sha256 FROM job_runs WHERE kind = 'scan'")
            #expect(rows.count == 1)
            #expect(try rows[0].decode("build_version", as: String.self) == BuildInfo.version)
            #expect(try rows[0].decode("build_commit", as: String.self) == BuildInfo.commit)
            #expect(try rows[0].decode("prompt_set_sha256", as: String.self) == expected)
        } catch {
            _ = try? await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
        _ = try? await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}
