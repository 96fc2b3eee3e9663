import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport
import JobsCLI

/// `migrate` on the app's database (the PRD's section 7 with Supabase's stand-ins), as a new user runs it.
@Suite struct SupabaseMigrationTests {
    static let now = FixedTime.wednesdayNoon

    @Test(arguments: TestDatabase.DefaultGrants.allCases)
    func migrateAdoptsTheAppsTablesAndASecondRunAppliesNothing(grants: TestDatabase.DefaultGrants) async throws {
        try await SupabaseShape.with(grants) { db in
            let again = try await Migrator(pool: db.pool).migrate([MigrationSet.service()])
            #expect(again.applied.isEmpty)
            #expect(again.alreadyApplied.contains("service/002_adopt_ai_tables.sql"))
            // The app's constraint stays, the service's columns are there and nullable.
            let unique = try await SupabaseShape.ownerCount(db, """
                SELECT count(*) FROM pg_constraint WHERE conrelid = 'rsvp_tracking'::regclass AND contype = 'u'
                  AND pg_get_constraintdef(oid) = 'UNIQUE (message_id, user_id)'
                """)
            #expect(unique == 1)
            let notNull = try await SupabaseShape.ownerCount(db, """
                SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1)
                  AND column_name IN ('idempotency_key', 'item_key', 'prompt_id', 'prompt_version', 'model', 'run_id') AND is_nullable = 'NO'
                """, [SupabaseShape.aiTables])
            #expect(notNull == 0)
            // The app's column types are untouched (TIMESTAMP without time zone).
            let type: String = try await db.pool.query(
                "SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'reminders' AND column_name = 'reminder_time'")[0]
                .decode("data_type")
            #expect(type == "timestamp without time zone")
        }
    }

    @Test func aColumnOfTheWrongTypeIsNamedWithTheFixAndNothingIsApplied() async throws {
        try await TestDatabase.with(migrate: false) { db in
            try await Migrator(pool: db.pool).migrate([MigrationSet.dev()])
            // The PRD's earlier draft (section 5) had deadlines.deadline as TIMESTAMP.
            try await db.pool.query("ALTER TABLE deadlines ALTER COLUMN deadline TYPE TIMESTAMP")
            let error = await #expect(throws: MigrationError.self) { try await Migrator(pool: db.pool).migrate([MigrationSet.service()]) }
            #expect(error?.code == .failed)
            let text = error?.description ?? ""
            #expect(text.contains("deadlines.deadline"), "\(text)")
            #expect(text.contains("ALTER TABLE deadlines ALTER COLUMN deadline TYPE date"), "\(text)")
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM messageai_migrations WHERE set_name = 'service'") == 0)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'idempotency_key'") == 0)
        }
    }

    /// The PRD's Edge Function inserts and upserts (sections 5.1-5.5 and 6) and the iOS updates, after migrate.
    @Test(arguments: TestDatabase.DefaultGrants.allCases, AITablesOrigin.allCases)
    func theAppsOwnWritesStillWork(grants: TestDatabase.DefaultGrants, origin: AITablesOrigin) async throws {
        try await SupabaseShape.with(grants, aiTables: origin) { db in
            let parent = try await SupabaseShape.user(db, "parent")
            let teacher = try await SupabaseShape.user(db, "teacher")
            let conversation = UUID(), message = UUID()
            try await db.pool.query("INSERT INTO conversations (id, name) VALUES ($1, 'Class')", [conversation])
            for user in [parent, teacher] {
                try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [conversation, user])
            }
            try await db.pool.query(
                "INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, 'Field trip Friday, slip due Thursday', '2026-03-02T14:00:00.000Z')",
                [message, conversation, teacher])
            // 5.1: calendar events (no idempotency key), twice, as the Edge Function would on a second tap.
            for _ in 0..<2 {
                try await db.pool.query(
                    """
                    INSERT INTO calendar_events (conversation_id, message_id, title, date, time, location, description, category, confidence, confirmed)
                    VALUES ($1, $2, 'Field trip', '2026-03-06', '09:00', 'Zoo', NULL, 'school', 0.9, false)
                    """, [conversation, message])
            }
            // 5.2: decisions with the message's created_at.
            try await db.pool.query(
                """
                INSERT INTO decisions (conversation_id, message_id, decision_text, category, decided_by, deadline, created_at)
                VALUES ($1, $2, 'Bus leaves at 9', 'schedule', $3, NULL, '2026-03-02T14:00:00.000Z')
                """, [conversation, message, teacher])
            // 5.3 and 5.4: PostgREST upserts (ON CONFLICT on the primary key / on 'message_id,user_id'), twice.
            for priority in ["high", "urgent"] {
                try await db.pool.query(
                    """
                    INSERT INTO priority_messages (message_id, priority, reason, action_required) VALUES ($1, $2, 'Slip due', true)
                    ON CONFLICT (message_id) DO UPDATE SET priority = EXCLUDED.priority, reason = EXCLUDED.reason, action_required = EXCLUDED.action_required
                    """, [message, priority])
                try await db.pool.query(
                    """
                    INSERT INTO rsvp_tracking (message_id, conversation_id, user_id, event_name, requested_by, deadline, event_date, status, response)
                    VALUES ($1, $2, $3, 'Field trip', $4, '2026-03-05', '2026-03-06', 'pending', NULL)
                    ON CONFLICT (message_id, user_id) DO UPDATE SET status = EXCLUDED.status, response = EXCLUDED.response
                    """, [message, conversation, parent, teacher])
            }
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM rsvp_tracking") == 1)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM calendar_events") == 2)
            // 5.5: a deadline and its reminder (created_by 'ai', an ISO instant into TIMESTAMP).
            let deadline: UUID = try await db.pool.query(
                """
                INSERT INTO deadlines (message_id, conversation_id, user_id, task, deadline, category, priority, details, status)
                VALUES ($1, $2, $3, 'Permission slip', '2026-03-05', 'school', 'high', NULL, 'pending') RETURNING id
                """, [message, conversation, parent])[0].decode("id")
            try await db.pool.query(
                "INSERT INTO reminders (user_id, title, reminder_time, priority, status, created_by) VALUES ($1, 'Reminder: Permission slip', '2026-03-04T18:00:00.000Z', 'high', 'pending', 'ai')",
                [parent])
            // Section 6's createReminder, and the documented 'expired' statuses.
            try await db.pool.query(
                "INSERT INTO reminders (user_id, title, reminder_time, priority, status, created_by) VALUES ($1, 'Pack lunch', '2026-03-06T07:00:00.000Z', 'medium', 'pending', 'ai')",
                [parent])
            try await db.pool.query("UPDATE rsvp_tracking SET status = 'expired'")
            try await db.pool.query("UPDATE deadlines SET status = 'expired' WHERE id = $1", [deadline])
            let at: Date = try await db.pool.query("SELECT reminder_time FROM reminders WHERE title LIKE 'Reminder:%'")[0].decode("reminder_time")
            #expect(at == ISO8601Instant.parse("2026-03-04T18:00:00Z"))

            // The iOS updates. Where the service created the tables they go through RLS as the signed-in user; the
            // PRD's own tables have no UPDATE policy for them, so there the app's writes are the owner's.
            let event: UUID = try await db.pool.query("SELECT id FROM calendar_events LIMIT 1")[0].decode("id")
            let confirm = "UPDATE calendar_events SET confirmed = true WHERE id = $1"
            let dismiss = "UPDATE priority_messages SET dismissed = true WHERE message_id = $1"
            let complete = "UPDATE deadlines SET status = 'completed', completed_at = '2026-03-04T10:00:00.000Z' WHERE id = $1"
            if origin == .service {
                #expect(try await SupabaseShape.affected(parent, db, confirm, [event]) == 1)
                #expect(try await SupabaseShape.affected(parent, db, dismiss, [message]) == 1)
                #expect(try await SupabaseShape.affected(parent, db, complete, [deadline]) == 1)
            } else {
                #expect(try await db.pool.query(confirm, [event]).affectedRows == 1)
                #expect(try await db.pool.query(dismiss, [message]).affectedRows == 1)
                #expect(try await db.pool.query(complete, [deadline]).affectedRows == 1)
            }
            // Reminders: the PRD's own UPDATE policy, as the signed-in user, either way.
            #expect(try await SupabaseShape.affected(parent, db, "UPDATE reminders SET status = 'dismissed' WHERE title = 'Pack lunch'") == 1)
            let state = try await db.pool.query(
                "SELECT (SELECT confirmed FROM calendar_events WHERE id = $1) AS c, (SELECT dismissed FROM priority_messages WHERE message_id = $2) AS d, (SELECT status FROM deadlines WHERE id = $3) AS s",
                [event, message, deadline])[0]
            #expect(try state.decode("c", as: Bool.self))
            #expect(try state.decode("d", as: Bool.self))
            #expect(try state.decode("s", as: String.self) == "completed")
        }
    }

    /// A database that already holds AI rows written the way the PRD's Edge Functions write them: migrate keeps
    /// them, and a scan that finds the same items updates those rows instead of adding a second copy.
    @Test func edgeFunctionRowsSurviveAndAScanUpdatesThemInsteadOfDuplicating() async throws {
        try await TestDatabase.with { reference in
            // What the service writes for the demo, on its own.
            _ = try await DemoLoader(pool: reference.pool).load(DemoDataset.make(now: Self.now))
            _ = try await SupabaseShape.rulesScan(reference, now: Self.now)
            var expected: [String: Int] = [:]
            for table in SupabaseShape.aiTables { expected[table] = try await SupabaseShape.ownerCount(reference, "SELECT count(*) FROM \(table)") }
            #expect(expected.values.allSatisfy { $0 > 0 }, "the demo should produce rows in every AI table: \(expected)")
            let a = reference.schema
            let appOnly = UUID()

            try await SupabaseShape.with(.grantAll, beforeService: { db in
                // The same conversations, and the Edge Functions' rows for the same items (their columns only).
                for table in ["users", "conversations", "conversation_participants", "messages"] {
                    try await db.pool.query("INSERT INTO \(table) SELECT * FROM \(a).\(table)")
                }
                let legacy = "'2020-01-01 00:00:00'"
                try await db.pool.query("""
                    INSERT INTO calendar_events (conversation_id, message_id, title, date, time, location, description, category, confidence, confirmed, created_at)
                    SELECT conversation_id, message_id, title, date, time, location, description, category, confidence, false, \(legacy) FROM \(a).calendar_events
                    """)
                try await db.pool.query("""
                    INSERT INTO decisions (conversation_id, message_id, decision_text, category, decided_by, deadline, created_at)
                    SELECT conversation_id, message_id, decision_text, category, decided_by, deadline, \(legacy) FROM \(a).decisions
                    """)
                try await db.pool.query("""
                    INSERT INTO priority_messages (message_id, priority, reason, action_required, created_at)
                    SELECT message_id, priority, reason, action_required, \(legacy) FROM \(a).priority_messages
                    """)
                try await db.pool.query("""
                    INSERT INTO rsvp_tracking (message_id, conversation_id, user_id, event_name, requested_by, deadline, event_date, status, response, created_at)
                    SELECT message_id, conversation_id, user_id, event_name, requested_by, deadline, event_date, status, response, \(legacy) FROM \(a).rsvp_tracking
                    """)
                try await db.pool.query("""
                    INSERT INTO deadlines (message_id, conversation_id, user_id, task, deadline, category, priority, details, status, created_at)
                    SELECT message_id, conversation_id, user_id, task, deadline, category, priority, details, 'pending', \(legacy) FROM \(a).deadlines
                    """)
                // 18:00 in the Edge Function's zone (UTC) the day before.
                try await db.pool.query("""
                    INSERT INTO reminders (user_id, title, reminder_time, priority, status, created_by, created_at)
                    SELECT r.user_id, r.title, d.deadline - 1 + time '18:00', r.priority, 'pending', 'ai', \(legacy)
                    FROM \(a).reminders r JOIN \(a).deadlines d ON d.id = r.deadline_id
                    """)
                // What users did with them, and a row the service will never find.
                try await db.pool.query("UPDATE calendar_events SET confirmed = true WHERE id = (SELECT min(id::text)::uuid FROM calendar_events)")
                try await db.pool.query("UPDATE deadlines SET status = 'completed' WHERE id = (SELECT min(id::text)::uuid FROM deadlines)")
                try await db.pool.query("UPDATE priority_messages SET dismissed = true WHERE message_id = (SELECT min(message_id::text)::uuid FROM priority_messages)")
                try await db.pool.query("""
                    INSERT INTO calendar_events (id, conversation_id, message_id, title, date, category, confidence, created_at)
                    SELECT $1, conversation_id, id, 'Added by hand', '2026-03-20', 'other', 1, \(legacy) FROM messages ORDER BY id LIMIT 1
                    """, [appOnly])
            }) { db in
                try await db.pool.query("INSERT INTO user_settings SELECT * FROM \(a).user_settings")
                let scan = try await SupabaseShape.rulesScan(db, now: Self.now)
                #expect(scan.failed == 0)
                for table in SupabaseShape.aiTables {
                    let extra = table == "calendar_events" ? 1 : 0
                    let total = try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM \(table)")
                    #expect(total == expected[table]! + extra, "\(table): \(total) rows, the service alone writes \(expected[table]!)")
                    // Every row is the app's (its created_at), now carrying the service's key.
                    #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM \(table) WHERE created_at <> '2020-01-01'") == 0, "\(table)")
                    // The first night of tracked items adopts every current row, the one added by hand too (an app item:
                    // its row is never removed), so each carries its ref's key.
                    #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM \(table) WHERE idempotency_key IS NULL") == 0, "\(table)")
                }
                #expect(scan.rowsInserted == 0)
                #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM calendar_events WHERE confirmed") == 1)
                #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM deadlines WHERE status = 'completed'") == 1)
                #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM priority_messages WHERE dismissed") == 1)
                #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM calendar_events WHERE id = $1", [appOnly]) == 1)
                // Adopted reminders now say when the service would remind: 18:00 in the user's zone.
                #expect(try await SupabaseShape.ownerCount(db, """
                    SELECT count(*) FROM reminders r JOIN \(a).reminders x ON x.idempotency_key = r.idempotency_key
                    WHERE r.reminder_time = x.reminder_time AND r.origin = 'extractor' AND r.deadline_id IS NOT NULL
                    """) == expected["reminders"]!)
            }
        }
    }

    /// messages.created_at may be the PRD's TIMESTAMP (UTC wall clock) or TIMESTAMPTZ; whatever the session's
    /// TimeZone, a scan reads the same instants, writes the same rows, and a second scan finds nothing new.
    @Test(arguments: ["timestamp", "timestamptz"])
    func scansReadTheSameInstantsOnBothColumnTypesInAnySessionZone(type: String) async throws {
        func rows(_ db: TestDatabase) async throws -> [String] {
            var out: [String] = []
            for sql in [
                "SELECT format('%s %s %s %s', idempotency_key, date, time, starts_at AT TIME ZONE 'UTC') AS r FROM calendar_events",
                "SELECT format('%s %s %s', idempotency_key, deadline, due_at AT TIME ZONE 'UTC') AS r FROM deadlines",
                "SELECT format('%s %s %s', idempotency_key, status, messageai_utc(responded_at) AT TIME ZONE 'UTC') AS r FROM rsvp_tracking",
                "SELECT format('%s %s', idempotency_key, messageai_utc(reminder_time) AT TIME ZONE 'UTC') AS r FROM reminders",
            ] {
                out += try await db.pool.query(sql).map { try $0.decode("r", as: String.self) }
            }
            return out.sorted()
        }
        let baseline = try await TestDatabase.with(sessionTimeZone: "UTC") { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Self.now))
            _ = try await SupabaseShape.rulesScan(db, now: Self.now)
            return try await rows(db)
        }
        #expect(!baseline.isEmpty)
        try await SupabaseShape.with(.grantNothing, sessionTimeZone: "Pacific/Auckland", beforeService: { db in
            if type == "timestamptz" {
                try await db.pool.query("ALTER TABLE messages ALTER COLUMN created_at TYPE timestamptz USING created_at AT TIME ZONE 'UTC'")
            }
        }) { db in
            let dataset = DemoDataset.make(now: Self.now)
            _ = try await DemoLoader(pool: db.pool).load(dataset)
            let first = try await SupabaseShape.rulesScan(db, now: Self.now)
            #expect(first.failed == 0)
            #expect(try await rows(db) == baseline)
            let second = try await SupabaseShape.rulesScan(db, now: Self.now)
            #expect(second.newMessages == 0)
            #expect(second.rowsInserted == 0 && second.rowsUpdated == 0)
            let message = try #require(dataset.conversations.first?.messages.first)
            let stored: Date = try await db.pool.query("SELECT created_at FROM messages WHERE id = $1", [message.id])[0].decode("created_at")
            #expect(abs(stored.timeIntervalSince(message.sentAt)) < 0.001)
        }
    }
}
