import ArgumentParser
import Migrations

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or update the tables this service owns.",
        discussion: """
            Applies the bundled SQL migrations in order, each in its own transaction, and records them in the
            messageai_migrations table. Running it again applies nothing. An applied migration whose text was
            edited stops the run before anything new is applied.

            --dev first creates the app's core tables (users, conversations, conversation_participants, messages,
            read_receipts) for a local database; on Supabase they already exist, so leave it off there.

            Example: messageai-jobs migrate --dev
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Also create the app's core tables (local development databases only).")
    var dev = false

    func run() async throws {
        output.bootstrap()
        var sets = [try MigrationSet.service()]
        if dev { sets.insert(try MigrationSet.dev(), at: 0) }
        let report = try await database.withPool(maxConnections: 1) { try await Migrator(pool: $0).migrate(sets) }
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
