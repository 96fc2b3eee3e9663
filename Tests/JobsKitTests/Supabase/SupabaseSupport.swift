import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import TestSupport

/// How a test database gets the app's AI tables: from the PRD's SQL (the service adopts them), or not at all
/// (the service creates them).
enum AITablesOrigin: String, CaseIterable, Sendable {
    case app
    case service
}

/// A database shaped like the app's Supabase project: `migrate --dev` (or the PRD without its AI tables), then the
/// service's migrations as `migrate` runs them in production.
enum SupabaseShape {
    static let aiTables = ["calendar_events", "decisions", "priority_messages", "rsvp_tracking", "deadlines", "reminders"]

    static func with<T: Sendable>(
        _ grants: TestDatabase.DefaultGrants, aiTables: AITablesOrigin = .app, sessionTimeZone: String? = nil,
        beforeService: (TestDatabase) async throws -> Void = { _ in }, _ body: (TestDatabase) async throws -> T
    ) async throws -> T {
        try await TestDatabase.with(migrate: false, sessionTimeZone: sessionTimeZone, defaultGrants: grants) { db in
            try await Migrator(pool: db.pool).migrate([MigrationSet.dev()])
            if aiTables == .service {
                try await db.pool.query("DROP TABLE \(Self.aiTables.joined(separator: ", "))")
            }
            try await beforeService(db)
            try await Migrator(pool: db.pool).migrate([MigrationSet.service()])
            return try await body(db)
        }
    }

    /// The SQLSTATE a statement failed with, or nil when it succeeded.
    static func failure(_ user: UUID?, _ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable] = []) async -> SQLState? {
        do {
            _ = try await db.asRole(user) { try await $0.query(sql, binds) }
            return nil
        } catch let error as PostgresError {
            return error.sqlState ?? SQLState("no SQLSTATE: \(error)")
        } catch {
            return SQLState("not a server error: \(error)")
        }
    }

    static func count(_ user: UUID?, _ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await db.asRole(user) { try await $0.query(sql, binds)[0].decode(at: 0, as: Int.self) }
    }

    static func affected(_ user: UUID?, _ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await db.asRole(user) { try await $0.query(sql, binds).affectedRows }
    }

    static func ownerCount(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await db.pool.query(sql, binds)[0].decode(at: 0, as: Int.self)
    }

    /// A Supabase account and the app's profile row for it.
    @discardableResult
    static func user(_ db: TestDatabase, _ name: String, id: UUID = UUID()) async throws -> UUID {
        try await db.pool.query("INSERT INTO auth.users (id, email) VALUES ($1, $2)", [id, "\(name)-\(id.uuidString.prefix(6))@example.com"])
        try await db.pool.query("INSERT INTO users (id, email, username, display_name) VALUES ($1, $2, $3, $4)",
                                [id, "\(name)-\(id.uuidString.prefix(6))@example.com", "\(name)-\(id.uuidString.prefix(6))", name])
        return id
    }

    /// The rule-based scan, as `scan --provider rules` runs it.
    static func rulesScan(_ db: TestDatabase, now: Date) async throws -> ScanService.Summary {
        let prompts = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let engine = try ExtractionEngine(prompts: prompts, provider: RulesAnswerProvider())
        var options = ScanOptions()
        options.owner = "supabase-test"
        return try await ScanService(pool: db.pool, engine: engine, options: options).run(now: now)
    }
}
