import AgentRuntime
import Extractors
import Foundation
import PromptKit
import Testing
import TestSupport

/// Builds small conversations in code and runs them through the real engine with the rule-based provider.
enum RulesFixture {
    static let zone = TimeZone(identifier: "America/New_York")!

    static let participants = [
        Participant(id: "maria", name: "Maria Lopez"),
        Participant(id: "dan", name: "Dan Kim"),
        Participant(id: "lee", name: "Lee Park"),
        Participant(id: "ana", name: "Ana Ruiz"),
    ]

    /// One message: sender id, sent time with its offset, text.
    struct Line {
        let sender: String
        let sent: String
        let text: String

        init(_ sender: String, _ sent: String, _ text: String) {
            self.sender = sender
            self.sent = sent
            self.text = text
        }
    }

    /// Message ids are "msg-1", "msg-2"... (never the prompt's aliases, so alias mapping is exercised).
    static func conversation(
        _ lines: [Line], now: String = "2026-03-02T20:00:00-05:00", firstNewIndex: Int = 0, viewer: Participant? = nil
    ) throws -> ConversationInput {
        let messages = try lines.enumerated().map { index, line in
            InputMessage(id: "msg-\(index + 1)", senderID: line.sender, sentAt: try ReferenceInstant.parse(line.sent), text: line.text)
        }
        return ConversationInput(
            conversationID: "conv-1", name: "Class 2 parents", isGroup: true, participants: participants, messages: messages,
            firstNewIndex: firstNewIndex, timeZone: zone, now: try ReferenceInstant.parse(now), viewer: viewer)
    }

    static func engine(windowing: Windowing = Windowing()) throws -> ExtractionEngine {
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        return try ExtractionEngine(prompts: library, provider: RulesAnswerProvider(), windowing: windowing)
    }

    /// Runs the features and checks what every rules run must satisfy: no model use, no notes (every cited
    /// id exists and every quoted date phrase re-resolves to the date the rules gave).
    static func run(
        _ input: ConversationInput, _ features: [ExtractionFeature] = ExtractionFeature.allCases, windowing: Windowing = Windowing()
    ) async throws -> Extraction {
        let run = try await engine(windowing: windowing).extract(input, features: features)
        #expect(run.requests == 0)
        #expect(run.usage == TokenUsage())
        #expect(run.extraction.notes.isEmpty, "notes: \(run.extraction.notes)")
        for feature in features { #expect(run.prompts[feature]?.model == "rules") }
        return run.extraction
    }
}

/// Monday 2026-03-02 (EST) at the given hour, as message sent times.
enum RulesSent {
    static func monday(_ time: String) -> String { "2026-03-02T\(time):00-05:00" }
    static func tuesday(_ time: String) -> String { "2026-03-03T\(time):00-05:00" }
}
