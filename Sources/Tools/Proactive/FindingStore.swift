package import Foundation
import Core
package import Postgres

/// Writes a batch of users' findings in `assistant_findings`, set-based (two statements for the whole batch):
/// - one row per (user, kind, subject): a finding seen again updates its row (no new row), reopening it if it had
///   been resolved;
/// - a dismissed finding stays dismissed while its fingerprint is unchanged; when the subject changes (an event
///   moved) the dismissal and the old explanation are cleared, so it is raised again;
/// - an open finding of these users that was not found this time is resolved (its cause went away).
/// `updated_at` moves only when something the app shows changed.
package struct FindingStore: Sendable {
    package struct Written: Sendable, Hashable, Codable {
        package var inserted = 0
        package var kept = 0
        package var resolved = 0
        package init() {}
    }

    /// Texts are cut to these lengths before they are stored.
    static let maxTitle = 300
    static let maxSuggestion = 2000

    package init() {}

    package func write(_ findings: [UUID: [Finding]], users: [UUID], runID: UUID?, now: Date, on db: PostgresConnection) async throws -> Written {
        var written = Written()
        guard !users.isEmpty else { return written }
        let all = users.flatMap { findings[$0] ?? [] }
        let payload = JSONValue.array(all.map(Self.json))
        if !all.isEmpty {
            let rows = try await db.query(
                """
                INSERT INTO assistant_findings AS a (user_id, kind, subject_key, fingerprint, severity, due_at, title, suggestion,
                                                     cites, details, first_run_id, last_run_id, first_seen_at, last_seen_at, updated_at)
                SELECT f.user_id, f.kind, f.subject_key, f.fingerprint, f.severity, to_timestamp(f.due_epoch),
                       left(f.title, \(Self.maxTitle)), left(f.suggestion, \(Self.maxSuggestion)), f.cites, f.details, $2::uuid, $2::uuid, $3, $3, $3
                FROM jsonb_to_recordset($1::jsonb) AS f(user_id uuid, kind text, subject_key text, fingerprint text, severity text,
                                                        due_epoch float8, title text, suggestion text, cites jsonb, details jsonb)
                ON CONFLICT (user_id, kind, subject_key) DO UPDATE SET
                  dismissed = a.dismissed AND a.fingerprint = EXCLUDED.fingerprint,
                  explanation = CASE WHEN a.fingerprint = EXCLUDED.fingerprint THEN a.explanation END,
                  rank = CASE WHEN a.fingerprint = EXCLUDED.fingerprint THEN a.rank END,
                  updated_at = CASE WHEN (a.fingerprint, a.status, a.severity, a.title, a.suggestion, a.due_at)
                                         IS DISTINCT FROM (EXCLUDED.fingerprint, 'open', EXCLUDED.severity, EXCLUDED.title,
                                                           EXCLUDED.suggestion, EXCLUDED.due_at)
                                    THEN EXCLUDED.updated_at ELSE a.updated_at END,
                  fingerprint = EXCLUDED.fingerprint, severity = EXCLUDED.severity, due_at = EXCLUDED.due_at,
                  title = EXCLUDED.title, suggestion = EXCLUDED.suggestion, cites = EXCLUDED.cites, details = EXCLUDED.details,
                  status = 'open', resolved_at = NULL, last_run_id = EXCLUDED.last_run_id, last_seen_at = EXCLUDED.last_seen_at
                RETURNING (xmax = 0) AS inserted
                """, [payload, runID, now])
            for row in rows {
                if try row.decode("inserted", as: Bool.self) { written.inserted += 1 } else { written.kept += 1 }
            }
        }
        let resolved = try await db.query(
            """
            UPDATE assistant_findings a SET status = 'resolved', resolved_at = $3, updated_at = $3, last_run_id = $2::uuid
            WHERE a.user_id = ANY($1::uuid[]) AND a.status = 'open'
              AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($4::jsonb) AS f(user_id uuid, kind text, subject_key text)
                              WHERE f.user_id = a.user_id AND f.kind = a.kind AND f.subject_key = a.subject_key)
            """, [users, runID, now, payload])
        written.resolved = resolved.affectedRows
        return written
    }

    static func json(_ f: Finding) -> JSONValue {
        [
            "user_id": .string(f.userID.uuidString.lowercased()), "kind": .string(f.kind.rawValue), "subject_key": .string(f.subjectKey),
            "fingerprint": .string(f.fingerprint), "severity": .string(f.severity.rawValue),
            "due_epoch": f.dueAt.map { .number($0.timeIntervalSince1970) } ?? .null,
            "title": .string(f.title.nulFree), "suggestion": .string(f.suggestion.nulFree),
            "cites": .array(f.cites.map(\.json)), "details": f.details.nulFree,
        ]
    }
}
