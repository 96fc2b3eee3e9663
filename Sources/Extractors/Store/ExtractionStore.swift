package import Core
package import Foundation
package import Postgres

/// Writes one conversation's night, inside the caller's transaction, into the app's tables (MessageAI PRD section 7)
/// the way its Edge Functions filled them: `message_id` is the item's first source message, a deadline's reminder is
/// "Reminder: <task>" at 18:00 the evening before (`Deadlines`), `created_by` is 'ai'.
///
/// The parent features' items live across nights (docs/over-nights.md): the store loads the conversation's state
/// (`TrackedItemStore`), reconciles the night's answer with it (`Reconciliation.apply`, refusals counted), writes the
/// rows of the items that changed keyed by their ref (`<feature>:<conversation>:<ref>`; per-user rows add the user),
/// closes the rows of closed items (`RowClosing`) and saves the state. Rows whose content did not change are not
/// touched. A row the app already holds for a new item (no key, same message and date) is adopted: it gets the key
/// and is updated instead of a second row being added. Columns the app's users own (confirmed, dismissed, a completed
/// deadline, a dismissed reminder) are never overwritten; an RSVP seen as answered never goes back to pending. A
/// feature outside the five (a registry's own) is written as before: keyed by its items' identity.
package struct ExtractionStore: Sendable {
    package struct Provenance: Sendable {
        package let runID: UUID?
        package let prompts: [ExtractionFeature: PromptRef]

        package init(runID: UUID?, prompts: [ExtractionFeature: PromptRef]) {
            self.runID = runID
            self.prompts = prompts
        }
    }

    /// Rows per feature: new, changed, and removed (replace mode); items closed per feature and refused parts of the
    /// answer per kind (`Refusal.Kind`).
    package struct WriteSummary: Sendable, Codable, Hashable {
        package var inserted: [String: Int] = [:]
        package var updated: [String: Int] = [:]
        package var removed: [String: Int] = [:]
        package var remindersCreated = 0
        package var closed: [String: Int] = [:]
        package var refused: [String: Int] = [:]
        /// What was refused and why (the first 20), for the caller's log.
        package var refusals: [String] = []

        package init() {}
    }

    /// The reminder for a deadline: the evening before, at this local time (the PRD's 6 PM).
    static let reminderTime = LocalTime(hour: 18, minute: 0)!

    /// The zone of users without a `user_settings` row (their deadlines' due time and reminders).
    package var zones: UserTimeZonePolicy

    /// The `closed` and `refused` counts as `job_runs.details` keeps them (absent when none).
    package static func details(closed: [String: Int], refused: [String: Int], into details: inout JSONObject) {
        if !closed.isEmpty { details["closed"] = .object(JSONObject(closed.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })) }
        if !refused.isEmpty { details["refused"] = .object(JSONObject(refused.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })) }
    }

    /// The features whose rows this store writes.
    package var registry: FeatureRegistry

    package init(zones: UserTimeZonePolicy = .utc, registry: FeatureRegistry = .shipping) {
        self.zones = zones
        self.registry = registry
    }

    /// A deadline reminder's title, as the PRD's Edge Function wrote it.
    static func reminderTitle(task: String) -> String { "Reminder: \(task)" }

    /// - Parameter replace: the extraction covered the whole conversation: the night starts from no open service item
    ///   of these features (`NightWrite.reconcile`), so items it no longer produces are superseded and their rows
    ///   removed, unless a user acted on them.
    package func write(
        _ extraction: Extraction, input: ConversationInput, features: [ExtractionFeature], provenance: Provenance,
        replace: Bool, now: Date, on db: PostgresConnection
    ) async throws -> WriteSummary {
        guard let conversationID = UUID(uuidString: input.conversationID) else {
            throw ExtractionError.invalidInput("conversation id '\(input.conversationID)' is not a UUID")
        }
        let zones = try await userTimeZones(input.participants.compactMap { UUID(uuidString: $0.id) }, on: db)
        let tracked = TrackedItemStore()
        let (stored, adopted) = try await tracked.loadNight(conversationID, now: now, timeZone: input.timeZone, on: db)
        var night = NightWrite.reconcile(extraction, input: input, features: Set(features), replace: replace, stored: stored, now: now)
        if adopted {
            // The first night of tracked items brings the adopted rows up to date (the service's columns, reminders).
            for item in night.state.openItems where stored[item.ref] != nil && !night.touched.contains(item.ref) {
                night.touched.append(item.ref)
            }
        }
        var writer = RowWriter(db: db, conversationID: conversationID, input: input, provenance: provenance, zones: zones, now: now)
        writer.track(night.state)
        let touched = Set(night.touched)
        let changed = Extraction(night.state.items.filter { touched.contains($0.ref) && $0.isOpen }.map(\.body))
        for id in registry.sorted(features) {
            let feature = try registry.require(id)
            if ExtractionFeature.tracked.contains(id) {
                try await writer.write(feature, changed)
                if replace { try await writer.removeStale(feature, keeping: writer.trackedKeys(id)) }
            } else {
                try await writer.write(feature, extraction)
                if replace { try await writer.removeStale(feature) }
            }
        }
        for ref in night.touched {
            guard let item = night.state[ref] else { continue }
            if item.status != .open, let closing = night.closing[ref] {
                try await RowClosing.close(item, reason: closing.reason, removesRow: closing.removesRow, rows: &writer)
            } else if RowClosing.metByEveryone(item, input: input) {
                // One row for every reader: it closes once every participant but its sender has met it.
                try await RowClosing.close(item, reason: "met", removesRow: item.closingRemovesRow, rows: &writer)
            }
        }
        try await tracked.save(night.state, conversationID: conversationID, runID: provenance.runID, closedReasons: night.closedReasons,
                               only: adopted || replace ? nil : Set(night.touched), on: db)
        // Whichever command writes the night, a member who left keeps nothing of the conversation.
        try await LeftMembers().close(in: conversationID, now: now, on: db)
        var summary = writer.summary
        summary.closed = night.closedByFeature
        summary.refused = night.refusals.reduce(into: [:]) { $0[$1.kind.rawValue, default: 0] += 1 }
        summary.refusals = night.refusals.prefix(20).map(\.description)
        return summary
    }

    /// Each participant's zone by ``UserTimeZonePolicy``: her `user_settings` row, else (no row, or not a valid zone) the default zone.
    private func userTimeZones(_ ids: [UUID], on db: PostgresConnection) async throws -> [String: TimeZone] {
        var zones: [String: TimeZone] = [:]
        for row in try await db.query("SELECT user_id::text AS id, time_zone FROM user_settings WHERE user_id = ANY($1::uuid[])", [ids]) {
            let id: String = try row.decode("id")
            zones[id] = self.zones.zone(user: id, setting: try row.decode("time_zone", as: String.self)).zone
        }
        for id in ids where zones[id.postgresValue] == nil { zones[id.postgresValue] = self.zones.fallback }
        return zones
    }
}

/// One write's connection and context, handed to each feature's `Extractor.writeRows`; keeps the keys written
/// so that replace mode knows what is stale.
package struct RowWriter {
    let db: PostgresConnection
    let conversationID: UUID
    let input: ConversationInput
    let provenance: ExtractionStore.Provenance
    let zones: [String: TimeZone]
    let now: Date
    var summary = ExtractionStore.WriteSummary()
    var written: [ExtractionFeature: [String]] = [:]
    /// The tracked items' refs and who they are met for, by their current fields (the rows' keys follow the ref).
    private var refs: [ItemBody: (ref: String, metFor: Set<String>)] = [:]
    /// Every tracked item's ref by feature (replace mode keeps their rows).
    private var refsByFeature: [ExtractionFeature: [String]] = [:]

    init(db: PostgresConnection, conversationID: UUID, input: ConversationInput, provenance: ExtractionStore.Provenance,
         zones: [String: TimeZone], now: Date) {
        self.db = db
        self.conversationID = conversationID
        self.input = input
        self.provenance = provenance
        self.zones = zones
        self.now = now
    }

    mutating func track(_ state: ConversationState) {
        for item in state.items {
            refs[item.body] = (item.ref, item.metFor)
            refsByFeature[item.body.feature, default: []].append(item.ref)
        }
    }

    /// The key of `body`'s rows when it is a tracked item (`<feature>:<conversation>:<ref>`), else nil.
    func itemKey(_ body: ItemBody) -> String? {
        refs[body].map { TrackedItemStore.rowKey(body, ref: $0.ref, conversation: conversation) }
    }

    /// Who `body` is met for (a deadline handed in: her row completed, her reminder cancelled).
    func metFor(_ body: ItemBody) -> Set<String> { refs[body]?.metFor ?? [] }

    /// The keys of every tracked item's rows of `feature`, per-user rows for every participant included.
    func trackedKeys(_ feature: ExtractionFeature) -> [String] {
        let prefix = ExtractionFeature.rowKeyPrefixes[feature] ?? feature.rawValue
        return (refsByFeature[feature] ?? []).flatMap { ref in
            let key = "\(prefix):\(conversation):\(ref)"
            return [key] + input.participants.map { "\(key):\($0.id)" }
        }
    }

    var conversation: String { conversationID.postgresValue }

    /// The binds every row starts with: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model.
    func base(_ prompt: PromptRef) -> [any PostgresEncodable] { [provenance.runID, prompt.id, prompt.version, prompt.model] }

    mutating func write(_ feature: any Extractor, _ extraction: Extraction) async throws {
        guard let prompt = provenance.prompts[feature.id] else { return }
        try await feature.write(extraction, prompt: prompt, to: &self)
    }

    /// Gives the app's row for this item (no idempotency key yet) the item's key, so the upsert that follows updates
    /// it instead of adding a second row. Does nothing when a row already has the key or the app has none.
    func claim(_ sql: String, _ binds: [any PostgresEncodable]) async throws {
        try await db.query(sql, binds)
    }

    mutating func upsert(_ feature: ExtractionFeature, key: String, sql: String, binds: [any PostgresEncodable]) async throws {
        written[feature, default: []].append(key)
        let result = try await db.query(sql, binds)
        guard let row = result.first else { return }  // unchanged: the WHERE clause skipped the update
        if try row.decode("inserted", as: Bool.self) {
            summary.inserted[feature.rawValue, default: 0] += 1
        } else {
            summary.updated[feature.rawValue, default: 0] += 1
        }
    }

    /// Removes this conversation's AI rows of a feature that this extraction did not produce (and whose keys are not
    /// in `keeping`), keeping rows a user acted on.
    mutating func removeStale(_ feature: any Extractor, keeping: [String] = []) async throws {
        let keys = (written[feature.id] ?? []) + keeping
        let removed = try await db.query(feature.staleRowsSQL, [conversationID, keys]).affectedRows
        if removed > 0 { summary.removed[feature.id.rawValue, default: 0] += removed }
    }

    /// Only rows the service wrote (they have a key) and did not write this time; the app's rows stay.
    static let serviceRowNotIn = "AND idempotency_key IS NOT NULL AND idempotency_key <> ALL($2::text[])"
}
