import Core

/// The mutable state of one run, and the bounds checked before each model call.
struct RunState {
    var messages: [ChatMessage]
    var steps: [AgentStepTrace] = []
    var usage = Usage.zero
    var ledger = CallLedger()
    /// Model calls made so far (including failed ones).
    var calls = 0
    /// HTTP attempts of those calls, retries and failed ones included: what the server was asked and may bill.
    var attempts = 0
    /// Set after an answer came on a tool step without the schema: the next call asks for it in the schema.
    var answering = false
    /// Set after an answer broke the output schema: the next call is the one re-ask.
    var reasking = false
    /// Set when the step limit, not the model, ended the tool use.
    var forcedByStepLimit = false
    /// The model name of the last answer (`AgentRunResult.servedModel`).
    var servedModel: String?
    let start: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant?

    init(messages: [ChatMessage], start: ContinuousClock.Instant, timeLimit: Duration?) {
        self.messages = messages
        self.start = start
        self.deadline = timeLimit.map { start + $0 }
    }

    var completedReason: AgentStopReason { forcedByStepLimit ? .maxSteps : .completed }

    /// The bound that forbids another model call, if any. `maxSteps` counts every call, re-asks included.
    func stopBeforeCall(_ limits: AgentLimits) -> AgentStopReason? {
        if Task.isCancelled { return .cancelled }
        if calls >= limits.maxSteps { return .maxSteps }
        if let budget = limits.tokenBudget, usage.totalTokens >= budget { return .tokenBudget }
        if let deadline, ContinuousClock.now >= deadline { return .deadline }
        return nil
    }

    /// True when the next call is the last one the step limit allows.
    func nextCallIsLast(_ limits: AgentLimits) -> Bool { calls + 1 >= limits.maxSteps }

    mutating func record(_ result: ChatCompletionResult, into trace: inout AgentStepTrace, latency: Duration) {
        let choice = result.response.firstChoice
        if let used = result.response.usage { usage += used }
        attempts += result.attempts
        servedModel = result.response.servedModel ?? servedModel
        trace.usage = result.response.usage
        trace.latencyMs = latency.wholeMilliseconds
        trace.finishReason = choice.finishReason.rawValue
        trace.attempts = result.attempts
        trace.requestID = result.requestID
        trace.assistantText = (choice.message.content ?? choice.message.refusal).map { bounded($0) }
    }

    /// Cuts the last assistant answer to `limit` characters (head and tail), before it is sent back in a re-ask.
    mutating func boundLastAnswer(_ limit: Int) {
        guard case .assistant(let content?, let toolCalls)? = messages.last else { return }
        messages[messages.count - 1] = .assistant(content: AnswerExcerpt.cut(content, limit: limit), toolCalls: toolCalls)
    }

    func finish(_ reason: AgentStopReason, text: String? = nil, output: JSONValue? = nil) -> AgentRunResult {
        AgentRunResult(
            finalText: text, output: output, stopReason: reason, messages: messages, steps: steps, usage: usage,
            duration: ContinuousClock.now - start, attempts: attempts, servedModel: servedModel
        )
    }
}
