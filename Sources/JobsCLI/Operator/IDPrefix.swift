package import Foundation
package import Postgres
import JobsKit

/// A row id as an operator types it: the whole UUID, or the first characters of it as `runs` and the summaries print
/// it (`a4573e95`). A prefix is resolved against its table and must name exactly one row; an ambiguous one is refused
/// with the ids it matches, so nothing runs against the wrong row.
package struct IDPrefix: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased, without the dashes' meaning changed (`a4573e95-1c`).
    package let text: String

    /// At least this many hex digits: shorter prefixes match too much to be worth a query.
    static let minimumDigits = 4

    /// Nil unless `text` is a UUID or a prefix of one of at least `minimumDigits` hex digits.
    package init?(_ text: String) {
        let lowered = text.lowercased()
        guard lowered.count <= 36, lowered.allSatisfy({ $0.isHexDigit || $0 == "-" }),
              lowered.filter(\.isHexDigit).count >= Self.minimumDigits else { return nil }
        // Dashes only where a UUID has them, so a prefix compares as the text form does.
        let dashes = [8, 13, 18, 23]
        for (offset, character) in lowered.enumerated() where (character == "-") != dashes.contains(offset) { return nil }
        self.text = lowered
    }

    package var description: String { text }

    /// The whole id, when this is one.
    package var uuid: UUID? { text.count == 36 ? UUID(uuidString: text) : nil }

    /// The tables an id may name, with what an error calls their rows.
    package enum Table: String, Sendable {
        case jobRuns = "job_runs", conversations, users, llmBatches = "llm_batches"

        var noun: String {
            switch self {
            case .jobRuns: "run"
            case .llmBatches: "batch"
            case .conversations: "conversation"
            case .users: "user"
            }
        }
    }

    /// The one id of `table` starting with this prefix (a whole UUID is returned as it is, without a query; whether
    /// it exists is the caller's check). Throws `notFound` when none does, `conflict` naming the matches when several do.
    package func resolve(in table: Table, pool: PostgresPool) async throws -> UUID {
        if let uuid { return uuid }
        let matches: [UUID] = try await pool.query(
            "SELECT id FROM \(table.rawValue) WHERE id::text LIKE $1 ORDER BY id LIMIT 6", [text + "%"])
            .map { try $0.decode("id") }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw JobsError.notFound("no \(table.noun) id starts with '\(text)' in \(table.rawValue)")
        default:
            let listed = matches.prefix(5).map { $0.uuidString.lowercased() }.joined(separator: ", ")
            throw JobsError.conflict("the \(table.noun) id prefix '\(text)' is ambiguous: it matches \(listed)"
                                     + (matches.count > 5 ? " and more" : "") + "; give more of the id")
        }
    }
}
