package import TestSupport
package import AgentRuntime
import Core
import Extractors
package import Foundation

/// The seed's five AI features, each a separate edge function.
package enum SeedDesignFeature: String, Sendable, CaseIterable, Codable {
    case calendar, decisions, priority, rsvps, deadlines

    /// How far back the function reads, re-sent whole every night.
    package var windowDays: Int {
        switch self {
        case .calendar, .decisions: 7
        case .priority: 1
        case .rsvps: 30
        case .deadlines: 14
        }
    }

    /// RSVPs and deadlines are called once per participant (the function takes a `userId`), with the same prompt.
    package var perParticipant: Bool { self == .rsvps || self == .deadlines }
}

/// One conversation as the seed's functions see it.
package struct SeedDesignConversation: Sendable {
    package struct Message: Sendable {
        package let id: UUID
        package let senderName: String
        package let text: String
        package let sentAt: Date

        package init(id: UUID, senderName: String, text: String, sentAt: Date) {
            self.id = id
            self.senderName = senderName
            self.text = text
            self.sentAt = sentAt
        }
    }

    package let id: UUID
    package let participantIDs: [UUID]
    /// Oldest first.
    package let messages: [Message]

    package init(id: UUID, participantIDs: [UUID], messages: [Message]) {
        self.id = id
        self.participantIDs = participantIDs
        self.messages = messages
    }

    /// Every conversation of a generated workload, with its messages and senders' display names.
    package static func all(from workload: Workload) -> [SeedDesignConversation] {
        let names = Dictionary(workload.users.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let byConversation = Dictionary(grouping: workload.messages, by: \.conversationID)
        return workload.conversations.map { conversation in
            let messages = (byConversation[conversation.id] ?? []).sorted { $0.sentAt < $1.sentAt }.map {
                Message(id: $0.id, senderName: names[$0.senderID] ?? "Unknown", text: $0.text, sentAt: $0.sentAt)
            }
            return SeedDesignConversation(id: conversation.id, participantIDs: conversation.participantIDs, messages: messages)
        }
    }
}

/// One request the seed's design sends.
package struct SeedDesignRequest: Sendable {
    package let feature: SeedDesignFeature
    package let conversationID: UUID
    /// The participant a per-participant call is for.
    package let userID: UUID?
    package let request: ChatCompletionRequest
    /// UTF-8 bytes of the window's message lines alone: the seed's side of the conservative count.
    package let messageLineBytes: Int
}

/// Replays one night of the seed's design: for every conversation, each feature sends its whole window with the
/// seed's prompt and message format (calendar `[created_at] Name: text`; decisions, priority and RSVPs
/// `[id] Name: text`; deadlines `[id] text`; priority newest first, at most 50), RSVPs and deadlines once per
/// participant. The response schema goes as `response_format`, which the token rule bills like the AI SDK's
/// equivalent tool definition.
package struct SeedDesignSimulation: Sendable {
    package struct Totals: Sendable, Codable, Equatable {
        package var conversations = 0
        package var requests = 0
        /// Requests not sent because the feature's window held no message.
        package var skippedEmptyWindows = 0
        package var promptTokens = 0
        package var completionTokens = 0
        package var cachedPromptTokens = 0
        /// Message lines only (no system prompt, no schema), summed over requests sent.
        package var messageLineBytes = 0
        package var requestsByFeature: [String: Int] = [:]

        package var totalTokens: Int { promptTokens + completionTokens }
        /// The three token counts as the jobs' one usage type (the fields stay flat in the JSON output).
        package var usage: TokenUsage {
            TokenUsage(promptTokens: promptTokens, completionTokens: completionTokens, cachedPromptTokens: cachedPromptTokens)
        }

        package init() {}

        mutating func add(_ tokens: TokenUsage) {
            let sum = usage + tokens
            (promptTokens, completionTokens, cachedPromptTokens) = (sum.promptTokens, sum.completionTokens, sum.cachedPromptTokens)
        }
    }

    /// The night's end: windows reach back from here.
    package var now: Date
    package var model = "gpt-4o"
    /// The seed's functions call the model even for an empty window; skipping those makes the seed cheaper, so
    /// the comparison errs in the seed's favour.
    package var skipEmptyWindows = true

    package init(now: Date) { self.now = now }

    /// What the seed's design sends for one conversation in one night, in feature order.
    package func requests(for conversation: SeedDesignConversation) -> [SeedDesignRequest] {
        let today = LocalDate(now, in: TimeZone(identifier: "UTC")!).iso
        var requests: [SeedDesignRequest] = []
        for feature in SeedDesignFeature.allCases {
            let since = now.addingTimeInterval(-Double(feature.windowDays) * 86_400)
            var window = conversation.messages.filter { $0.sentAt >= since }
            if feature == .priority { window = Array(window.reversed().prefix(50)) }
            if window.isEmpty, skipEmptyWindows { continue }
            let text = window.map { message in
                switch feature {
                case .calendar:
                    let stamp = ISO8601Instant.string(message.sentAt, style: .numericOffset)
                    return "[\(stamp)] \(message.senderName): \(message.text)"
                case .decisions, .priority, .rsvps: return "[\(message.id.uuidString.lowercased())] \(message.senderName): \(message.text)"
                case .deadlines: return "[\(message.id.uuidString.lowercased())] \(message.text)"
                }
            }.joined(separator: "\n")
            let request = ChatCompletionRequest(
                model: model,
                messages: [.system(SeedDesignPrompts.system(feature, today: today)), .user(SeedDesignPrompts.user(feature, messagesText: text))],
                responseFormat: .jsonSchema(name: "seed_\(feature.rawValue)", schema: SeedDesignPrompts.schema(feature), strict: false))
            let users: [UUID?] = feature.perParticipant ? conversation.participantIDs : [nil]
            requests += users.map { SeedDesignRequest(
                feature: feature, conversationID: conversation.id, userID: $0, request: request, messageLineBytes: text.utf8.count) }
        }
        return requests
    }

    /// Requests for one conversation if no window were skipped.
    package static func fullRequestCount(for conversation: SeedDesignConversation) -> Int {
        SeedDesignFeature.allCases.reduce(0) { $0 + ($1.perParticipant ? conversation.participantIDs.count : 1) }
    }

    /// Sends the night's requests with `concurrency` in flight and sums the usage the server reports.
    package func send(_ conversations: [SeedDesignConversation], to client: any ChatCompleting, concurrency: Int) async throws -> Totals {
        let workers = max(1, min(concurrency, conversations.count))
        return try await withThrowingTaskGroup(of: Totals.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var totals = Totals()
                    for index in stride(from: worker, to: conversations.count, by: workers) {
                        let conversation = conversations[index]
                        let planned = requests(for: conversation)
                        totals.conversations += 1
                        totals.skippedEmptyWindows += Self.fullRequestCount(for: conversation) - planned.count
                        for item in planned {
                            let result = try await client.complete(item.request)
                            guard let usage = result.response.usage else {
                                throw BenchError("the server reported no usage for the seed's \(item.feature.rawValue) request (conversation \(item.conversationID))")
                            }
                            totals.requests += 1
                            totals.requestsByFeature[item.feature.rawValue, default: 0] += 1
                            totals.add(TokenUsage(usage))
                            totals.messageLineBytes += item.messageLineBytes
                        }
                    }
                    return totals
                }
            }
            var all = Totals()
            for try await part in group {
                all.conversations += part.conversations
                all.requests += part.requests
                all.skippedEmptyWindows += part.skippedEmptyWindows
                all.add(part.usage)
                all.messageLineBytes += part.messageLineBytes
                all.requestsByFeature.merge(part.requestsByFeature, uniquingKeysWith: +)
            }
            return all
        }
    }
}
