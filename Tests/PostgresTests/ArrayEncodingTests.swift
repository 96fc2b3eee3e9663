import Foundation
import Postgres
import Testing
import TestSupport

/// `text[]` parameters are escaped byte by byte (issue 15: Foundation's `replacingOccurrences` per element was a tenth
/// of the scan's CPU), giving the text the old escaping gave, and also escaping a quote or backslash that a
/// combining mark follows, which the old, character-wise escaping left bare.
@Suite struct ArrayEncodingTests {
    static let values = ["", "a b", "c,\"d\"", "NULL", "back\\slash", "\\\"", "héllo", "😀 {x}", "’quote’", "\"\u{301}x", "a\\\u{301}"]

    @Test func plainElementsEncodeAsBefore() {
        let plain = Self.values.filter { !$0.unicodeScalars.contains("\u{301}") }
        let reference = "{" + plain.map { element in
            "\"" + element.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
        #expect(plain.postgresText == reference)
        #expect([String]().postgresText == "{}")
    }

    @Test func everyElementRoundTripsThroughTheServer() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let rows = try await db.pool.query("SELECT $1::text[] AS texts, cardinality($1::text[]) AS n", [Self.values])
            let row = try #require(rows.first)
            #expect(try row.decode("n", as: Int.self) == Self.values.count)
            let texts = try row.decode("texts", as: [String].self)
            #expect(texts.map { Array($0.unicodeScalars) } == Self.values.map { Array($0.unicodeScalars) })
        }
    }
}
