package import Core
import Foundation
import Postgres

package struct RSVPReply: Sendable, Hashable, Codable {
    package var participantID: String
    package var response: String
    package var messageID: String
}

/// An RSVP request with the answers seen. Each participant's status is derived from `responses`.
package struct RSVPItem: Sendable, Hashable, Codable {
    package var event: String
    package var eventDate: LocalDate
    package var deadline: LocalDate?
    package var requestedBy: String?
    package var datePhrase: String?
    package var modelDate: LocalDate?
    package var sources: [String]
    package var responses: [RSVPReply]

    /// The latest answer of a participant, if any.
    package func response(of participantID: String) -> RSVPReply? {
        responses.last { $0.participantID == participantID }
    }
}

/// The identity of an RSVP request: its first (earliest) source message and the event's date.
extension RSVPItem { package var mergeKey: String { "\(sources.first ?? ""):\(eventDate.iso)" } }

extension Extraction {
    package var rsvps: [RSVPItem] { get { self[RSVPs()] } set { self[RSVPs()] = newValue } }
}

/// RSVPs: requests to reply and who answered, written to `rsvp_tracking` (one row per participant who owes an answer).
package struct RSVPs: Extractor {
    package var id: ExtractionFeature { .rsvps }

    package var combinedRule: String {
        #"invitations to an event someone hosts that ask for attendance ("RSVP by Friday", "who's coming?", "let me know if you can make it"). Not volunteer or item sign-ups, school trips needing a form or payment, "let's do X?" suggestions between parents, or invitations the User sent. deadline: the reply-by date or null. requested_by: the host's sender alias. responses: each participant's latest yes, no or maybe with its message_id, the User's own included; "will confirm soon" is no answer; leave out non-answers. Cite the invitation messages."#
    }

    package func mergeKey(_ item: RSVPItem) -> String { item.mergeKey }

    /// A later window may see answers the earlier one did not: they are added to the request already found.
    package func merge(_ item: RSVPItem, into items: inout [RSVPItem]) {
        guard let index = items.firstIndex(where: { $0.mergeKey == item.mergeKey }) else {
            items.append(item)
            return
        }
        for response in item.responses {
            items[index].responses.removeAll { $0.participantID == response.participantID }
            items[index].responses.append(response)
        }
    }

    package func rulesAnswer(_ scan: RuleScan) -> JSONValue { RSVPRules.answer(scan) }

    /// `user`'s status and latest answer (the fixture's reference user), not the group's.
    package func scored(_ item: RSVPItem, user: String) -> ScoredRSVP {
        let answer = item.response(of: user)
        return ScoredRSVP(
            event: item.event, eventDate: item.eventDate, deadline: item.deadline, requestedBy: item.requestedBy ?? "",
            source: item.sources, status: answer == nil ? .pending : .responded,
            response: answer.flatMap { RSVPResponse(rawValue: $0.response) })
    }

    package func reportLine(_ item: RSVPItem) -> String {
        "\(item.event) on \(item.eventDate.iso)\(item.deadline.map { ", reply by " + $0.iso } ?? ""): \(item.responses.count) answered"
    }

    package func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [RSVPItem] {
        Self.list(answer, "rsvps").enumerated().compactMap { index, item in
            let label = "rsvp \(index) '\(item["event"]?.stringValue?.prefix(40) ?? "")'"
            guard let (sources, holder) = context.grounded(item, label: label),
                  let modelDate = context.date(item["event_date"], field: "event_date", item: label) ?? nil,
                  let modelDeadline = context.date(item["deadline"], field: "deadline", item: label) else { return nil }
            let phrase = item["date_phrase"]?.nonEmptyString
            let resolved = context.resolve(phrase: phrase, modelDate: modelDate, sources: sources, evidenceMessage: holder, item: label)
            guard !context.dropsOutsideWindow(resolved, phrase: phrase, label: label),
                  context.backed(item["event"]?.nonEmptyString, field: "event", sources: sources, modelCited: context.modelCited(item),
                                 date: resolved.date, time: nil, item: label)
            else { return nil }
            var deadline = modelDeadline
            if let given = modelDeadline {
                let deadlinePhrase = item["deadline_phrase"]?.nonEmptyString
                let reply = context.resolve(phrase: deadlinePhrase, modelDate: given, sources: sources, evidenceMessage: holder,
                                            item: label + " deadline", deadline: true)
                if context.dropsOutsideWindow(reply, phrase: deadlinePhrase, label: label) { return nil }
                deadline = reply.date
            }
            var responses: [RSVPReply] = []
            for answer in item["responses"]?.arrayValue ?? [] {
                guard let who = context.participant(answer["participant_id"]),
                      let alias = answer["message_id"]?.stringValue, let message = context.window.message(forAlias: alias),
                      let response = answer["response"]?.stringValue else {
                    context.note(.dropped, "\(label): dropped an answer naming an unknown participant or message")
                    continue
                }
                responses.removeAll { $0.participantID == who }
                responses.append(RSVPReply(participantID: who, response: response, messageID: message.id))
            }
            return RSVPItem(
                event: item["event"]?.nonEmptyString ?? "Event",
                eventDate: resolved.date, deadline: deadline,
                requestedBy: context.participant(item["requested_by"]) ?? sources.first.flatMap { context.input.message($0)?.senderID },
                datePhrase: phrase, modelDate: resolved.modelDate, sources: sources, responses: responses)
        }
    }

    /// The app's UNIQUE(message_id, user_id) makes an RSVP its request message and user, whatever event date the model
    /// read: a re-dated request updates the row it already has (see `claimSQL`), and of two requests the model reads in
    /// one message only the first is written (the table holds one per message and user).
    package func writeRows(_ items: [RSVPItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        var requestMessages: Set<String> = []
        for item in items {
            guard requestMessages.insert(item.sources.first ?? "").inserted else { continue }
            let itemKey = rows.itemKey(.rsvp(item)) ?? "rsvp:\(rows.conversation):\(item.mergeKey)"
            // Everyone but the person asking owes an answer; their status comes from who answered.
            for person in rows.input.participants where person.id != item.requestedBy {
                let answer = item.response(of: person.id)
                let answeredAt = answer.flatMap { rows.input.message($0.messageID)?.sentAt }
                try await rows.claim(Self.claimSQL, ["\(itemKey):\(person.id)", item.sources, person.id, item.eventDate])
                try await rows.upsert(id, key: "\(itemKey):\(person.id)", sql: Self.upsertSQL, binds: rows.base(prompt) + [
                    "\(itemKey):\(person.id)", itemKey, rows.conversationID, item.sources.first, person.id, item.event,
                    item.requestedBy, item.deadline, item.eventDate, answer == nil ? "pending" : "responded",
                    answer?.response, answer?.messageID, answeredAt, item.datePhrase, item.modelDate,
                ])
            }
        }
    }

    /// A row the user answered in the app (no answering message) stays, like her answer.
    package var staleRowsSQL: String {
        """
        DELETE FROM rsvp_tracking WHERE conversation_id = $1 \(RowWriter.serviceRowNotIn)
          AND NOT (\(Self.answeredInApp))
        """
    }

    /// The user answered in the app: the row is no longer pending and no message of hers carried the answer. The service
    /// never rewrites such an answer.
    static let answeredInApp = "rsvp_tracking.response_message_id IS NULL AND rsvp_tracking.status IS DISTINCT FROM 'pending'"

    /// Gives this item's key to the row it must update (see `RowWriter.claim`): $1 the row's key, $2 the source message
    /// ids, $3 the user, $4 the event date. The app's UNIQUE(message_id, user_id): the row for the request's first message
    /// is this item's whatever its date and key (the app's row, or the service's from a night that read another date);
    /// otherwise an app row for another source message with the same event date.
    static let claimSQL = """
        UPDATE rsvp_tracking SET idempotency_key = $1
        WHERE id = (SELECT id FROM rsvp_tracking WHERE user_id = $3::uuid AND message_id = ANY($2::uuid[])
                      AND (message_id = ($2::uuid[])[1] OR (idempotency_key IS NULL AND event_date = $4::date))
                    ORDER BY message_id = ($2::uuid[])[1] DESC, created_at, id LIMIT 1)
          AND idempotency_key IS DISTINCT FROM $1
          AND NOT EXISTS (SELECT 1 FROM rsvp_tracking WHERE idempotency_key = $1)
        """

    /// Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model (`RowWriter.base`), then the row's own values from $5.
    static let upsertSQL = """
        INSERT INTO rsvp_tracking (run_id, prompt_id, prompt_version, model, idempotency_key, item_key, conversation_id,
            message_id, user_id, event_name, requested_by, deadline, event_date, status, response, response_message_id,
            responded_at, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid, $9::uuid, $10, $11::uuid, $12::date, $13::date, $14, $15, $16::uuid,
            $17, $18, $19::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET event_name = EXCLUDED.event_name, requested_by = EXCLUDED.requested_by,
            item_key = EXCLUDED.item_key, conversation_id = EXCLUDED.conversation_id, event_date = EXCLUDED.event_date,
            deadline = EXCLUDED.deadline,
            status = CASE WHEN EXCLUDED.status = 'responded' AND NOT (\(answeredInApp)) THEN EXCLUDED.status ELSE rsvp_tracking.status END,
            response = CASE WHEN \(answeredInApp) THEN rsvp_tracking.response ELSE COALESCE(EXCLUDED.response, rsvp_tracking.response) END,
            response_message_id = CASE WHEN \(answeredInApp) THEN NULL
                                       ELSE COALESCE(EXCLUDED.response_message_id, rsvp_tracking.response_message_id) END,
            responded_at = CASE WHEN \(answeredInApp) THEN rsvp_tracking.responded_at
                                ELSE COALESCE(EXCLUDED.responded_at, rsvp_tracking.responded_at) END,
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (rsvp_tracking.event_name, rsvp_tracking.requested_by, rsvp_tracking.deadline, rsvp_tracking.event_date,
               rsvp_tracking.item_key, rsvp_tracking.date_phrase, rsvp_tracking.model_date, rsvp_tracking.prompt_id,
               rsvp_tracking.prompt_version, rsvp_tracking.model)
            IS DISTINCT FROM (EXCLUDED.event_name, EXCLUDED.requested_by, EXCLUDED.deadline, EXCLUDED.event_date,
               EXCLUDED.item_key, EXCLUDED.date_phrase, EXCLUDED.model_date, EXCLUDED.prompt_id, EXCLUDED.prompt_version,
               EXCLUDED.model)
           OR (EXCLUDED.status = 'responded' AND NOT (\(answeredInApp)) AND (rsvp_tracking.status, rsvp_tracking.response, rsvp_tracking.response_message_id)
               IS DISTINCT FROM (EXCLUDED.status, EXCLUDED.response, EXCLUDED.response_message_id))
        RETURNING (xmax = 0) AS inserted
        """
}
