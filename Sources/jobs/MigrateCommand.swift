import ArgumentParser
import JobsKit
import Postgres
import JobsCLI

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Adopt the app's AI tables and create the tables this service owns.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs migrate [--dev] [<options>]",
        discussion: """
            Applies the bundled SQL migrations in order, each in its own transaction, and records them in the \
            messageai_migrations table. Running it again applies nothing. An applied migration whose text was \
            edited stops the run before anything new is applied.

            On the app's database (the MessageAI PRD's schema on Supabase) it keeps the app's six AI tables and their \
            rows, adding the service's columns and indexes; a missing AI table is created in the PRD's shape. Every \
            table it creates gets row level security and explicit grants. Run it as the database owner (postgres).

            --dev first builds locally what a Supabase project has: the auth schema, auth.uid(), the roles anon, \
            authenticated and service_role, then the PRD's section 7 schema with its policies (and the fix for its \
            recursive conversation_participants policies). Never use --dev on Supabase.

            Example: messageai-jobs migrate --dev
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "First build Supabase's stand-ins and the app's PRD schema (local development databases only).")
    var dev = false

    func run() async throws {
        output.bootstrap()
        var sets = [try MigrationSet.service()]
        if dev { sets.insert(try MigrationSet.dev(), at: 0) }
        let report = try await database.assembly().withServices(connections: 1, requireMigrated: false) { try await $0.migrator.migrate(sets) }
        if output.json {
            try Console.printJSON(report)
        } else if report.applied.isEmpty {
            Console.print("Database is up to date (\(report.alreadyApplied.count) migrations already applied).")
        } else {
            for name in report.applied { Console.print("applied \(name)") }
            Console.print("\(report.applied.count) applied, \(report.alreadyApplied.count) already applied.")
        }
    }
}
