package import Core
import Foundation
import Postgres

/// A calendar event found in a conversation. Ids are the input's real ids (never the prompt's aliases).
package struct EventItem: Sendable, Hashable, Codable {
    package var title: String
    package var date: LocalDate
    package var time: LocalTime?
    package var endTime: LocalTime?
    package var location: String?
    package var description: String
    package var category: EventCategory
    package var confidence: Double
    package var datePhrase: String?
    /// The model's own date when code resolved the phrase to a different one; equal to `date` when the model's
    /// date was kept because code could not read the whole phrase (a flag for review).
    package var modelDate: LocalDate?
    package var sources: [String]
    /// Set for a second, distinct event of one message, date and time (see `ItemIdentity`).
    package var variant: String? = nil
}

/// The identity of an event: its first (earliest) source message, its date and its time (and its `variant`).
extension EventItem {
    var baseKey: String { "\(sources.first ?? ""):\(date.iso):\(time?.iso ?? "-")" }
    package var mergeKey: String { variant.map { "\(baseKey)~\($0)" } ?? baseKey }
}

extension Extraction {
    package var events: [EventItem] { get { self[CalendarEvents()] } set { self[CalendarEvents()] = newValue } }
}

/// Calendar events: dated plans with a time and place, written to `calendar_events`.
package struct CalendarEvents: Extractor {
    package var id: ExtractionFeature { .calendarEvents }

    package var combinedRule: String {
        #"dated occasions the User's family might attend or that change the family's day: school events, appointments, children's activities (one item per game or session), social plans, closures, no-school days and early dismissals (with the dismissal time), invitations whatever the User answers, dated plans the parents agreed on. A series given by its first date is one event on that date. Not past events (dated before today; today's events stay even when their time has passed), vague plans, unagreed suggestions, cancelled events, deadlines that are not occasions, other families' own events, or custody, carpool and pick-up arrangements (those are decisions). A moved event: one item at its latest date and time. One item per occasion; cite every message adding a detail. confidence 0 to 1."#
    }
    package var itemsKey: String { "events" }

    package func mergeKey(_ item: EventItem) -> String { item.mergeKey }

    package func merge(_ item: EventItem, into items: inout [EventItem]) {
        ItemIdentity.merge(item, into: &items, base: \.baseKey, text: \.title, sources: \.sources, variant: \.variant)
    }

    package func rulesAnswer(_ scan: RuleScan) -> JSONValue { CalendarEventRules.answer(scan) }

    package func scored(_ item: EventItem, user: String) -> ScoredEvent {
        ScoredEvent(title: item.title, date: item.date, time: item.time, location: item.location, category: item.category,
                    source: item.sources)
    }

    package func reportLine(_ item: EventItem) -> String {
        "\(item.date.iso)\(item.time.map { " " + $0.iso } ?? "")\(item.endTime.map { "-" + $0.iso } ?? "") \(item.title)"
            + "\(item.location.map { " @ " + $0 } ?? "") [\(item.category.rawValue)]"
    }

    package func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [EventItem] {
        Self.list(answer, "events").enumerated().compactMap { index, item in
            let label = "event \(index) '\(item["title"]?.stringValue?.prefix(40) ?? "")'"
            guard let grounded = context.grounded(item, label: label),
                  let (resolved, phrase) = context.requiredDate(item, field: "date", grounded: grounded, label: label) else { return nil }
            let sources = grounded.sources
            let time = resolved.time ?? item["time"]?.stringValue.flatMap { LocalTime(iso: $0) }
            guard context.backed(item["title"]?.nonEmptyString, field: "title", sources: sources, modelCited: context.modelCited(item),
                                 date: resolved.date, time: time,
                                 item: label) else { return nil }
            let confidence = min(1, max(0, item["confidence"]?.doubleValue ?? 0.5))
            return EventItem(
                title: item["title"]?.nonEmptyString ?? "Event",
                date: resolved.date,
                time: context.backedTime(time, field: "time", sources: sources, item: label),
                endTime: context.backedTime(resolved.endTime ?? item["end_time"]?.stringValue.flatMap { LocalTime(iso: $0) },
                                            field: "end time", sources: sources, item: label),
                location: context.backedLocation(item["location"]?.nonEmptyString, sources: sources, item: label),
                description: item["description"]?.stringValue ?? "",
                category: item["category"]?.stringValue.flatMap(EventCategory.init(rawValue:)) ?? .other,
                confidence: resolved.weekdayConflict ? min(confidence, DecodeContext.conflictConfidence) : confidence,
                datePhrase: phrase, modelDate: resolved.modelDate, sources: sources)
        }
    }

    package func writeRows(_ items: [EventItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let key = rows.itemKey(.event(item)) ?? "event:\(rows.conversation):\(item.mergeKey)"
            try await rows.claim(Self.claimSQL, [key, item.sources, item.date])
            try await rows.upsert(id, key: key, sql: Self.upsertSQL, binds: rows.base(prompt) + [
                key, rows.conversationID, item.sources.first, item.sources, item.title, item.date, item.time, item.endTime,
                rows.input.timeZone.identifier, item.location, item.description, item.category.rawValue, item.confidence,
                item.datePhrase, item.modelDate,
            ])
        }
    }

    package var staleRowsSQL: String {
        "DELETE FROM calendar_events WHERE conversation_id = $1 AND confirmed IS NOT TRUE \(RowWriter.serviceRowNotIn)"
    }

    /// Claims the app's row (see `RowWriter.claim`): $1 the item's key, $2 its source message ids, $3 its date.
    static let claimSQL = """
        UPDATE calendar_events SET idempotency_key = $1
        WHERE id = (SELECT id FROM calendar_events WHERE idempotency_key IS NULL AND message_id = ANY($2::uuid[]) AND date = $3::date
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM calendar_events WHERE idempotency_key = $1)
        """

    /// Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model (`RowWriter.base`), then the row's own values from $5.
    static let upsertSQL = """
        INSERT INTO calendar_events (run_id, prompt_id, prompt_version, model, idempotency_key, conversation_id, message_id,
            source_message_ids, title, date, time, end_time, starts_at, ends_at, time_zone, location, description, category,
            confidence, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7::uuid, $8::uuid[], $9, $10::date, $11::time, $12::time,
            ($10::date + $11::time) AT TIME ZONE $13, ($10::date + $12::time) AT TIME ZONE $13, $13, $14, $15, $16, $17, $18, $19::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET source_message_ids = EXCLUDED.source_message_ids, title = EXCLUDED.title,
            conversation_id = EXCLUDED.conversation_id, message_id = COALESCE(calendar_events.message_id, EXCLUDED.message_id),
            date = EXCLUDED.date, time = EXCLUDED.time, starts_at = EXCLUDED.starts_at,
            end_time = EXCLUDED.end_time, ends_at = EXCLUDED.ends_at, time_zone = EXCLUDED.time_zone, location = EXCLUDED.location,
            description = EXCLUDED.description, category = EXCLUDED.category, confidence = EXCLUDED.confidence,
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (calendar_events.source_message_ids, calendar_events.title, calendar_events.date, calendar_events.time, calendar_events.end_time, calendar_events.location,
               calendar_events.description, calendar_events.category, calendar_events.confidence, calendar_events.date_phrase,
               calendar_events.model_date, calendar_events.prompt_id, calendar_events.prompt_version, calendar_events.model)
            IS DISTINCT FROM (EXCLUDED.source_message_ids, EXCLUDED.title, EXCLUDED.date, EXCLUDED.time, EXCLUDED.end_time, EXCLUDED.location,
               EXCLUDED.description, EXCLUDED.category, EXCLUDED.confidence, EXCLUDED.date_phrase, EXCLUDED.model_date,
               EXCLUDED.prompt_id, EXCLUDED.prompt_version, EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """
}
