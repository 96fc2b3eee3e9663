import JSONKit
import PromptKit

/// Answers every extractor from English patterns instead of an LLM, so the jobs run (and CI tests the whole
/// pipeline) with no model configured. Answers use the feature's schema and aliases, exactly like a model's,
/// so the engine validates and decodes them on the same path; they are conservative by design.
public struct RulesAnswerProvider: AnswerProvider {
    public let name = "rules"

    public init() {}

    public func modelName(for prompt: Prompt) -> String { "rules" }

    public func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        ProviderAnswer(json: Self.answer(feature: request.feature, window: request.window, input: request.input))
    }

    /// The rule-based answer for one feature over one window (the rendered prompt is not needed).
    static func answer(feature: ExtractionFeature, window: MessageWindow, input: ConversationInput) -> JSONValue {
        let scan = RuleScan(window: window, input: input)
        switch feature {
        case .calendarEvents: return CalendarEventRules.answer(scan)
        case .decisions: return DecisionRules.answer(scan)
        case .priorityMessages: return PriorityRules.answer(scan)
        case .rsvps: return RSVPRules.answer(scan)
        case .deadlines: return DeadlineRules.answer(scan)
        }
    }
}
