import TestSupport
import Core
import Extractors
import Foundation
import Postgres

/// Open items of earlier nights for the token benchmark (issue 46): a night after the first carries each scanned
/// conversation's open items in its request (docs/over-nights.md), and the benchmark must count them. Each
/// conversation gets `count` items cycling event, deadline, decision, priority (the kinds a busy chat keeps open),
/// worded from its own earlier messages and dated in the coming week, saved through the store's own `save`, so the
/// scan reads them exactly as it reads a real night's state.
struct OpenItemsSeeding {
    let count: Int

    /// Items for one conversation: `messages` oldest first (the earlier ones name the items), `now` the night.
    func items(messages: [Workload.Message], now: Date, timeZone: TimeZone) throws -> [TrackedItem] {
        let earlier = messages.filter { $0.sentAt < now.addingTimeInterval(-86_400) }
        guard count > 0, !earlier.isEmpty else { return [] }
        let today = LocalDate(now, in: timeZone)
        return try (0..<count).map { index in
            let message = earlier[max(0, earlier.count - 1 - index * 3)]
            let words = String(message.text.prefix(44))
            let date = today.adding(days: 2 + index % 5).iso
            let source = message.id.uuidString.lowercased()
            let (letter, body): (String, JSONValue) = switch index % 4 {
            case 0: ("e", ["event": ["title": .string(words), "date": .string(date), "time": "16:00", "endTime": .null,
                                     "location": "Lincoln Park field 2", "description": "", "category": "activity",
                                     "confidence": 0.9, "datePhrase": .null, "modelDate": .null, "sources": [.string(source)]]])
            case 1: ("t", ["deadline": ["task": .string(words), "deadline": .string(date), "time": .null, "category": "school",
                                        "priority": "high", "details": .null, "datePhrase": .null, "modelDate": .null,
                                        "sources": [.string(source)]]])
            case 2: ("c", ["decision": ["decision": .string(words), "category": "carpool", "decidedBy": .null, "deadline": .null,
                                        "datePhrase": .null, "modelDate": .null, "sources": [.string(source)]]])
            default: ("p", ["priority": ["messageID": .string(source), "priority": "high", "reason": .string(words),
                                         "actionRequired": true]])
            }
            let item = try JSONDecoder().decode(ItemBody.self, from: Data(body.serialized().utf8))
            return TrackedItem(ref: "\(letter)\(index / 4 + 1)", body: item,
                               until: letter == "p" ? today.adding(days: 3) : nil)
        }
    }

    /// Saves every conversation's items in one transaction.
    func seed(_ workload: Workload, pool: PostgresPool) async throws -> Int {
        let byConversation = Dictionary(grouping: workload.messages, by: \.conversationID)
        let zones = Dictionary(uniqueKeysWithValues: workload.users.map { ($0.id, $0.timeZone) })
        var saved = 0
        try await pool.transaction { db in
            for conversation in workload.conversations {
                let zone = conversation.participantIDs.first.flatMap { zones[$0] }.flatMap(TimeZone.init(identifier:)) ?? .gmt
                let items = try items(messages: byConversation[conversation.id] ?? [], now: workload.spec.now, timeZone: zone)
                guard !items.isEmpty else { continue }
                try await TrackedItemStore().save(ConversationState(items: items), conversationID: conversation.id, runID: nil, on: db)
                saved += items.count
            }
        }
        return saved
    }
}
