import Core
package import Foundation
import Postgres
package import Tools

/// A stored finding still open and not dismissed: what the assistant is given and may raise.
package struct OpenFinding: Sendable, Hashable, Codable {
    package var userID: UUID
    package var kind: String
    package var subjectKey: String
    package var severity: String
    package var dueAt: Date?
    package var title: String
    package var suggestion: String
    package var explanation: String?
    package var rank: Int?
    package var cites: [Citation]

    package var citedIDs: Set<UUID> { Set(cites.map(\.id)) }

    /// Open, undismissed findings of `users` in one query, most severe and soonest first.
    static func load(_ users: [UUID], on db: PostgresConnection) async throws -> [UUID: [OpenFinding]] {
        let rows = try await db.query(
            """
            SELECT user_id, kind, subject_key, severity, due_at, title, suggestion, explanation, rank, cites
            FROM assistant_findings
            WHERE user_id = ANY($1::uuid[]) AND status = 'open' AND NOT dismissed
            ORDER BY user_id, CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, due_at NULLS LAST, subject_key
            """, [users])
        var result: [UUID: [OpenFinding]] = [:]
        for row in rows {
            let cites: JSONValue = try row.decode("cites")
            let finding = OpenFinding(
                userID: try row.decode("user_id"), kind: try row.decode("kind"), subjectKey: try row.decode("subject_key"),
                severity: try row.decode("severity"), dueAt: try row.decode("due_at"), title: try row.decode("title"),
                suggestion: try row.decode("suggestion"), explanation: try row.decode("explanation"), rank: try row.decode("rank"),
                cites: (cites.arrayValue ?? []).compactMap { item in
                    guard let table = item["table"]?.stringValue, let id = item["id"]?.stringValue.flatMap(UUID.init(uuidString:)) else { return nil }
                    return Citation(table: table, id: id)
                })
            result[finding.userID, default: []].append(finding)
        }
        return result
    }

    /// What the model is shown of a finding.
    var promptJSON: JSONValue {
        [
            "kind": .string(kind), "severity": .string(severity), "title": .string(title), "suggestion": .string(suggestion),
            "cites": .array(cites.map { ["table": .string($0.table), "id": .string($0.id.uuidString.lowercased())] }),
        ]
    }
}
