import Foundation
package import Postgres

/// Writes the demo dataset in one transaction, into the app's tables as the PRD defines them (times are bound as
/// UTC instants and stored as the columns' types say: TIMESTAMP holds UTC wall clock, TIMESTAMPTZ the instant). Rows have fixed ids and are inserted only when missing,
/// so loading twice leaves the same rows; `reset` deletes the demo's rows (and what was extracted from
/// them) first, for fresh dates.
package struct DemoLoader: Sendable {
    package struct Report: Sendable, Codable {
        package var users = 0
        package var conversations = 0
        package var participants = 0
        package var messages = 0
        /// Rows that were new in this load (0 on a second load).
        package var inserted = 0
        package var reset = false
    }

    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    package func load(_ dataset: DemoDataset, reset: Bool = false) async throws -> Report {
        try await pool.transaction { db in
            var report = Report()
            report.reset = reset
            if reset {
                // The accounts in auth.users stay: other databases' users may belong to them.
                try await db.query("DELETE FROM conversations WHERE id = ANY($1::uuid[])", [dataset.conversations.map(\.id)])
                try await db.query("DELETE FROM users WHERE id = ANY($1::uuid[])", [dataset.users.map(\.id)])
            }
            for user in dataset.users {
                // The app's users row belongs to a Supabase account (users.id references auth.users).
                try await db.query(
                    "INSERT INTO auth.users (id, email) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", [user.id, user.email])
                report.inserted += try await db.query(
                    """
                    INSERT INTO users (id, email, username, display_name) VALUES ($1, $2, $3, $4)
                    ON CONFLICT DO NOTHING
                    """, [user.id, user.email, user.username, user.displayName]).affectedRows
                report.inserted += try await db.query(
                    "INSERT INTO user_settings (user_id, time_zone) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    [user.id, user.timeZone]).affectedRows
                report.users += 1
            }
            for conversation in dataset.conversations {
                let created = conversation.messages.map(\.sentAt).min() ?? Date()
                report.inserted += try await db.query(
                    """
                    INSERT INTO conversations (id, name, is_group, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT DO NOTHING
                    """, [conversation.id, conversation.name, conversation.isGroup, created, created]).affectedRows
                report.conversations += 1
                for participant in conversation.participantIDs {
                    report.inserted += try await db.query(
                        """
                        INSERT INTO conversation_participants (conversation_id, user_id, joined_at) VALUES ($1, $2, $3)
                        ON CONFLICT DO NOTHING
                        """, [conversation.id, participant, created]).affectedRows
                    report.participants += 1
                }
                for message in conversation.messages {
                    report.inserted += try await db.query(
                        """
                        INSERT INTO messages (id, conversation_id, sender_id, content, created_at, updated_at)
                        VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
                        """, [message.id, conversation.id, message.senderID, message.text, message.sentAt, message.sentAt]).affectedRows
                    report.messages += 1
                }
            }
            return report
        }
    }
}
