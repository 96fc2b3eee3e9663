/// The bounds of one agent run. Every run ends: by an answer, or by the first bound it reaches.
package struct AgentLimits: Sendable, Hashable {
    /// Model calls in all, including the forced final answer and any schema re-ask: a run never makes more.
    /// The last allowed call is made with `tool_choice: "none"` so the model has to answer.
    package var maxSteps: Int
    /// Tool calls run per model turn; extra calls get an error result instead of running.
    package var maxToolCallsPerStep: Int
    /// Tool calls of one turn run in parallel, at most this many at once.
    package var maxConcurrentToolCalls: Int
    /// Total tokens (prompt + completion, all steps); no new model call starts once this is reached.
    package var tokenBudget: Int?
    /// Wall-clock limit for the whole run; model calls and tool batches are cut off when it passes.
    package var timeLimit: Duration?
    /// Bytes of one tool result (serialized JSON) sent back to the model; a larger result is replaced by an error
    /// that asks for less, so one tool cannot flood the context or the token bill.
    package var maxToolResultBytes: Int
    /// Characters of a failed answer sent back in a re-ask (head and tail, the cut marked), so a re-ask never
    /// carries a long wrong answer into a context it would overflow.
    var maxReaskEchoCharacters: Int

    package init(
        maxSteps: Int = 5, maxToolCallsPerStep: Int = 8, maxConcurrentToolCalls: Int = 4, tokenBudget: Int? = nil,
        timeLimit: Duration? = nil, maxToolResultBytes: Int = 32 * 1024, maxReaskEchoCharacters: Int = AnswerExcerpt.defaultLimit
    ) {
        self.maxReaskEchoCharacters = max(64, maxReaskEchoCharacters)
        self.maxSteps = max(1, maxSteps)
        self.maxToolCallsPerStep = max(1, maxToolCallsPerStep)
        self.maxConcurrentToolCalls = max(1, maxConcurrentToolCalls)
        self.tokenBudget = tokenBudget
        self.timeLimit = timeLimit
        self.maxToolResultBytes = max(256, maxToolResultBytes)
    }
}
