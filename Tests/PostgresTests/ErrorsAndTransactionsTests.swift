import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct ErrorsAndTransactionsTests {
    @Test func uniqueViolationCarriesSQLStateAndConstraint() async throws {
        try await TestDatabase.with(migrate: false) { db in
            try await db.pool.query("CREATE TABLE things (name text CONSTRAINT things_name_key UNIQUE)")
            try await db.pool.query("INSERT INTO things VALUES ($1)", ["a"])
            let error = await #expect(throws: PostgresError.self) {
                try await db.pool.query("INSERT INTO things VALUES ($1)", ["a"])
            }
            #expect(error?.sqlState == .uniqueViolation)
            #expect(error?.isUniqueViolation == true)
            #expect(error?.constraint == "things_name_key")
            #expect(error?.detail?.contains("(name)=(a)") == true)
        }
    }

    @Test func rolledBackTransactionLeavesNothing() async throws {
        struct Boom: Error {}
        try await TestDatabase.with(migrate: false) { db in
            try await db.pool.query("CREATE TABLE items (n int)")
            await #expect(throws: Boom.self) {
                try await db.pool.transaction { connection in
                    try await connection.query("INSERT INTO items VALUES (1)")
                    try await connection.query("INSERT INTO items VALUES (2)")
                    throw Boom()
                }
            }
            let count = try await db.pool.query("SELECT count(*) AS n FROM items")[0].decode("n", as: Int.self)
            #expect(count == 0)
            try await db.pool.transaction { connection in try await connection.query("INSERT INTO items VALUES (3)") }
            #expect(try await db.pool.query("SELECT count(*) AS n FROM items")[0].decode("n", as: Int.self) == 1)
        }
    }

    @Test func serializationFailureIsRetriedAsAWhole() async throws {
        try await TestDatabase.with(migrate: false) { db in
            try await db.pool.query("CREATE TABLE attempts (n int)")
            let attempts = Counter()
            try await db.pool.transaction(retries: 2) { connection in
                let attempt = await attempts.next()
                try await connection.query("INSERT INTO attempts VALUES ($1)", [attempt])
                if attempt == 1 {
                    // What the server raises when serializable transactions collide.
                    try await connection.query("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$")
                }
            }
            let rows = try await db.pool.query("SELECT n FROM attempts ORDER BY n").map { try $0.decode("n", as: Int.self) }
            #expect(rows == [2])  // the first attempt's insert was rolled back
        }
    }

    @Test func badURLIsClearAndHidesThePassword() async throws {
        let configuration = PostgresConfiguration(
            connectionString: "postgresql://alice:s3cr3t-pw@127.0.0.1:1/nowhere?connect_timeout=2")
        let error = await #expect(throws: PostgresError.self) { try await PostgresConnection.connect(configuration) }
        let text = try #require(error).description
        #expect(error?.kind == .connection)
        #expect(text.contains("127.0.0.1"))
        #expect(text.contains("port 1"))
        #expect(text.contains("nowhere"))
        #expect(!text.contains("s3cr3t-pw"))
        #expect(!configuration.description.contains("s3cr3t-pw"))

        let malformed = PostgresConfiguration(connectionString: "postgresql://bob:hunter2@host:notaport/db")
        let parseError = await #expect(throws: PostgresError.self) { try await PostgresConnection.connect(malformed) }
        #expect(!(parseError?.description.contains("hunter2") ?? true))
    }
}

actor Counter {
    private var value = 0
    func next() -> Int { value += 1; return value }
}
