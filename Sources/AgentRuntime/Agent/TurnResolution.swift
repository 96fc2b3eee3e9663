import Core

/// What the loop does after a model turn that needs no tools: finish, or re-ask once for schema-valid output.
/// Kept apart from the loop so the rules for ending a run read in one place.
enum TurnResolution {
    case finish(AgentStopReason, text: String?, output: JSONValue?)
    /// Send this correction as a user message and call again (the forced, final call).
    case reask(String)

    /// Resolves a turn that is not a tool call. `canCallAgain` is false when the step limit allows no further call,
    /// in which case a schema-invalid answer ends the run instead of being re-asked.
    static func resolve(
        _ turn: ModelTurn, output: AgentOutputSchema?, reasking: Bool, canCallAgain: Bool, completed: AgentStopReason,
        finishReason: String
    ) -> TurnResolution {
        switch turn {
        case .toolCalls:
            preconditionFailure("tool calls are executed by the loop, not resolved here")
        case .refusal(let text):
            return .finish(.refused(bounded(text)), text: nil, output: nil)
        case .empty:
            return .finish(.error("the model answered with no text and no tool calls (finish_reason \(finishReason))"), text: nil, output: nil)
        case .answer(let text):
            guard let output else { return .finish(completed, text: text, output: nil) }
            switch output.check(text) {
            case .success(let value):
                return .finish(completed, text: text, output: value)
            case .failure(let mismatch):
                if reasking {
                    return .finish(.error("the answer still does not match the output schema after a re-ask: \(mismatch.summary)"), text: text, output: nil)
                }
                guard canCallAgain else {
                    return .finish(.error("the answer does not match the output schema and the step limit leaves no call for a re-ask: \(mismatch.summary)"), text: text, output: nil)
                }
                return .reask("Your answer does not match the required JSON schema '\(output.name)': \(mismatch.summary). Reply again with only the corrected JSON.")
            }
        }
    }
}
