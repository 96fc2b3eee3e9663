import Core
import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct DecodingTests {
    @Test func everyTypeRoundTripsThroughTheServer() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let id = UUID()
            let instant = Date(timeIntervalSince1970: 1_772_500_000.123456)
            let rows = try await db.pool.query(
                """
                SELECT $1::text AS t, $2::int AS i, $3::bigint AS b, $4::bool AS yes, $5::float8 AS d, $6::uuid AS u,
                       $7::timestamptz AS ts, $8::date AS day, $9::time AS tm, $10::jsonb AS j,
                       $11::text[] AS texts, $12::uuid[] AS ids, $13::int[] AS ints, NULL::text AS missing,
                       '2026-03-02 08:14:00-05'::timestamptz AS offset_ts
                """,
                ["héllo, \"quoted\" 'x'", 42, Int64(9_000_000_000), true, 2.5, id, instant, LocalDate(iso: "2026-03-07")!,
                 LocalTime(iso: "11:00")!, JSONValue.object(["a": [1, 2], "b": nil]), ["a b", "c,\"d\"", "NULL", ""], [id], [1, 2, 3]])
            let row = try #require(rows.first)
            #expect(try row.decode("t", as: String.self) == "héllo, \"quoted\" 'x'")
            #expect(try row.decode("i", as: Int.self) == 42)
            #expect(try row.decode("b", as: Int64.self) == 9_000_000_000)
            #expect(try row.decode("yes", as: Bool.self))
            #expect(try row.decode("d", as: Double.self) == 2.5)
            #expect(try row.decode("u", as: UUID.self) == id)
            let ts = try row.decode("ts", as: Date.self)
            #expect(abs(ts.timeIntervalSince1970 - instant.timeIntervalSince1970) < 0.000_001)
            #expect(try row.decode("day", as: LocalDate.self).iso == "2026-03-07")
            #expect(try row.decode("tm", as: LocalTime.self).iso == "11:00")
            #expect(try row.decode("j", as: JSONValue.self) == ["a": [1, 2], "b": nil])
            #expect(try row.decode("texts", as: [String].self) == ["a b", "c,\"d\"", "NULL", ""])
            #expect(try row.decode("ids", as: [UUID].self) == [id])
            #expect(try row.decode("ints", as: [Int].self) == [1, 2, 3])
            #expect(try row.decode("missing", as: String?.self) == nil)
            #expect(try row.decode("offset_ts", as: Date.self) == Date(timeIntervalSince1970: 1_772_457_240))
        }
    }

    @Test func nullIntoNonOptionalNamesTheColumn() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let row = try await db.pool.query("SELECT NULL::int AS age, 'abc' AS word")[0]
            let error = try #require(throws: PostgresError.self) { try row.decode("age", as: Int.self) }
            #expect(error.kind == .decoding)
            #expect(error.description.contains("'age'"))
            #expect(error.description.contains("NULL"))
            let wrong = try #require(throws: PostgresError.self) { try row.decode("word", as: Int.self) }
            #expect(wrong.description.contains("'word'") && wrong.description.contains("abc"))
            let missing = try #require(throws: PostgresError.self) { try row.decode("nope", as: Int.self) }
            #expect(missing.kind == .usage && missing.description.contains("nope"))
        }
    }

    @Test func timestampsReadTheSameInAnySessionTimeZone() async throws {
        try await TestDatabase.with(migrate: false) { db in
            try await db.pool.withConnection { connection in
                try await connection.query("SET TimeZone = 'Asia/Kolkata'")
                let instant = try await connection.query("SELECT '2026-03-02T13:14:00Z'::timestamptz AS ts")[0].decode("ts", as: Date.self)
                #expect(instant == Date(timeIntervalSince1970: 1_772_457_240))
                try await connection.query("RESET TimeZone")
            }
        }
    }

    @Test func parametersCannotChangeTheStatement() async throws {
        try await TestDatabase.with(migrate: false) { db in
            try await db.pool.query("CREATE TABLE notes (body text)")
            let hostile = "x'); DROP TABLE notes; --"
            try await db.pool.query("INSERT INTO notes (body) VALUES ($1)", [hostile])
            let body = try await db.pool.query("SELECT body FROM notes")[0].decode("body", as: String.self)
            #expect(body == hostile)
            await #expect(throws: PostgresError.self) { try await db.pool.query("SELECT $1::text", ["nul\u{0}byte"]) }
        }
    }
}
