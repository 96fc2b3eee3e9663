import Core
@testable import Extractors
import Foundation
import Postgres
import TestSupport

/// A small group chat in a test database (two parents and a teacher), written night by night: its messages are real
/// rows, so the rows the store writes can cite them. Dates are relative to `day0` (a night's `now`).
struct NightChat {
    var conversation = UUID()
    var maria = UUID(), dan = UUID(), teacher = UUID()
    private(set) var messages: [InputMessage] = []

    var participants: [Participant] {
        [Participant(id: maria.postgresValue, name: "Maria"), Participant(id: dan.postgresValue, name: "Dan"),
         Participant(id: teacher.postgresValue, name: "Ms Lee")]
    }

    /// The users, the conversation and its members.
    /// `like`: the same ids as another chat's (the same chat in another database).
    static func make(_ db: TestDatabase, name: String = "Class 3B parents", like: NightChat? = nil) async throws -> NightChat {
        var chat = NightChat()
        if let like { (chat.conversation, chat.maria, chat.dan, chat.teacher) = (like.conversation, like.maria, like.dan, like.teacher) }
        for (id, handle) in [(chat.maria, "maria"), (chat.dan, "dan"), (chat.teacher, "lee")] {
            let email = "\(handle)-\(id.postgresValue.prefix(8))@nights.example"
            try await db.pool.query("INSERT INTO auth.users (id, email) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", [id, email])
            try await db.pool.query("INSERT INTO users (id, email, username, display_name) VALUES ($1, $2, $3, $4)",
                                    [id, email, "\(handle)-\(id.postgresValue.prefix(8))", handle])
        }
        try await db.pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1, $2, true)", [chat.conversation, name])
        for id in [chat.maria, chat.dan, chat.teacher] {
            try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [chat.conversation, id])
        }
        return chat
    }

    /// A message sent at `at`; its id.
    @discardableResult
    mutating func say(_ who: UUID, _ text: String, at: Date, _ db: TestDatabase, id: UUID = UUID()) async throws -> String {
        try await db.pool.query(
            "INSERT INTO messages (id, conversation_id, sender_id, content, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)",
            [id, conversation, who, text, at])
        messages.append(InputMessage(id: id.postgresValue, senderID: who.postgresValue, sentAt: at, text: text))
        return id.postgresValue
    }

    /// A night's input: the messages from `firstNew` on are new, the earlier ones context; `state` what the request listed.
    func input(now: Date, firstNew: Int = 0, state: ConversationState = ConversationState()) -> ConversationInput {
        var input = ConversationInput(conversationID: conversation.postgresValue, name: "Class 3B parents", isGroup: true,
                                      participants: participants, messages: messages, firstNewIndex: firstNew,
                                      timeZone: TimeZone(identifier: "UTC")!, now: now)
        input.state = state
        return input
    }

    /// Writes `extraction` as one night through the store, in one transaction, as scan does.
    func write(_ extraction: Extraction, _ input: ConversationInput, now: Date, replace: Bool = false,
               _ db: TestDatabase) async throws -> ExtractionStore.WriteSummary {
        let prompts = Dictionary(uniqueKeysWithValues: FeatureRegistry.shipping.ids.map { ($0, PromptRef(id: $0.rawValue, version: 1, model: "test")) })
        return try await db.pool.transaction { conn in
            try await ExtractionStore().write(extraction, input: input, features: FeatureRegistry.shipping.ids,
                                              provenance: .init(runID: nil, prompts: prompts), replace: replace, now: now, on: conn)
        }
    }

    /// The state the store holds for the chat (what the next night's request lists).
    func state(_ db: TestDatabase, now: Date) async throws -> ConversationState {
        try await db.pool.withConnection { conn in
            try await TrackedItemStore().load(conversation, now: now, timeZone: TimeZone(identifier: "UTC")!, rekeyAdopted: false, on: conn)
        }
    }

    static func event(_ title: String, _ date: LocalDate, time: LocalTime? = nil, location: String? = nil, sources: [String]) -> EventItem {
        EventItem(title: title, date: date, time: time, endTime: nil, location: location, description: "", category: .social,
                  confidence: 0.9, datePhrase: nil, modelDate: nil, sources: sources)
    }

    static func deadline(_ task: String, _ date: LocalDate, sources: [String]) -> DeadlineItem {
        DeadlineItem(task: task, deadline: date, time: nil, category: .school, priority: "high", details: nil, datePhrase: nil,
                     modelDate: nil, sources: sources)
    }
}

extension Extraction {
    /// An extraction of these items and verdicts.
    static func night(_ bodies: [ItemBody], known: [Verdict] = []) -> Extraction {
        var extraction = Extraction(bodies)
        extraction.known = known
        return extraction
    }
}
