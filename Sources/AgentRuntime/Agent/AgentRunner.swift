import Foundation
import JSONKit
import Logging

/// The step loop: call the model with the tools, run the calls it asks for, feed the results back, and repeat until it
/// answers without tool calls or a bound is reached. The last allowed call is made with `tool_choice: "none"` so the
/// model has to answer. Tool faults go back to the model as error results; nothing here throws.
public struct AgentRunner: Sendable {
    public let model: String?
    public let tools: [AnyAgentTool]
    public let limits: AgentLimits
    public var temperature: Double?
    public var seed: Int?
    public var maxCompletionTokens: Int?
    private let client: any ChatCompleting
    private let logger: Logger

    /// - Parameter model: nil uses the client's default model.
    public init(
        client: any ChatCompleting,
        model: String? = nil,
        tools: [AnyAgentTool],
        limits: AgentLimits = AgentLimits(),
        temperature: Double? = nil,
        seed: Int? = nil,
        maxCompletionTokens: Int? = nil,
        logger: Logger = Logger(label: "messageai.agent")
    ) {
        self.client = client
        self.model = model
        self.tools = tools
        self.limits = limits
        self.temperature = temperature
        self.seed = seed
        self.maxCompletionTokens = maxCompletionTokens
        self.logger = logger
    }

    /// Runs one task. With `output`, the final answer must be JSON matching it: one re-ask if it does not, then `.error`.
    public func run(system: String, user: String, output: AgentOutputSchema? = nil) async -> AgentRunResult {
        var run = RunState(messages: [.system(system), .user(user)], start: ContinuousClock.now, timeLimit: limits.timeLimit)
        let executor = ToolExecutor(tools: tools, maxCallsPerStep: limits.maxToolCallsPerStep, maxConcurrent: limits.maxConcurrentToolCalls)
        var reasking = false
        var step = 0
        while true {
            step += 1
            if Task.isCancelled { return run.finish(.cancelled) }
            if let budget = limits.tokenBudget, run.usage.totalTokens >= budget { return run.finish(.tokenBudget) }
            if let deadline = run.deadline, ContinuousClock.now >= deadline { return run.finish(.deadline) }

            let atStepLimit = step >= limits.maxSteps
            if atStepLimit, run.steps.contains(where: { !$0.toolCalls.isEmpty }) { run.forcedByStepLimit = true }
            let request = makeRequest(run.messages, forceAnswer: atStepLimit || reasking, output: output)
            var trace = AgentStepTrace(index: step, request: summary(of: request), toolCalls: [], latencyMs: 0)

            let callStart = ContinuousClock.now
            let result: ChatCompletionResult
            do {
                let client = self.client
                result = try await withDeadline(run.deadline) { try await client.complete(request) }
            } catch {
                trace.latencyMs = (ContinuousClock.now - callStart).wholeMilliseconds
                let reason = Self.stopReason(for: error)
                trace.error = reason.description
                run.steps.append(trace)
                logger.debug("agent step failed", metadata: ["step": "\(step)", "reason": "\(reason)"])
                return run.finish(reason)
            }
            let message = result.response.firstChoice.message
            run.record(result, into: &trace, latency: ContinuousClock.now - callStart)
            run.messages.append(message.asChatMessage)
            logger.debug("agent step", metadata: [
                "step": "\(step)", "finish_reason": "\(result.response.firstChoice.finishReason)", "tool_calls": "\(message.toolCalls.count)",
            ])

            switch ModelTurn(message) {
            case .toolCalls(let calls):
                if atStepLimit || reasking {
                    // The model ignored tool_choice "none"; its calls are not run.
                    trace.error = "tool calls on a forced final step were not run"
                    run.steps.append(trace)
                    return run.finish(.maxSteps, text: message.content)
                }
                let plans = executor.plan(calls, ledger: &run.ledger)
                let outcomes: [ToolCallOutcome]
                do {
                    outcomes = try await withDeadline(run.deadline) { await executor.run(plans) }
                } catch {
                    trace.error = "the deadline passed while tools were running"
                    run.steps.append(trace)
                    return run.finish(.deadline)
                }
                run.messages += outcomes.map(\.message)
                trace.toolCalls = outcomes.map(\.trace)
                run.steps.append(trace)
                if run.ledger.repeats >= 2 { return run.finish(.repeatedToolCall) }

            case .answer(let text):
                guard let output else {
                    run.steps.append(trace)
                    return run.finish(run.completedReason, text: text)
                }
                switch output.check(text) {
                case .success(let value):
                    run.steps.append(trace)
                    return run.finish(run.completedReason, text: text, output: value)
                case .failure(let mismatch):
                    trace.error = "the answer does not match the output schema: \(mismatch.summary)"
                    run.steps.append(trace)
                    if reasking {
                        return run.finish(.error("the answer still does not match the output schema after a re-ask: \(mismatch.summary)"), text: text)
                    }
                    reasking = true
                    run.messages.append(.user(
                        "Your answer does not match the required JSON schema '\(output.name)': \(mismatch.summary). Reply again with only the corrected JSON."
                    ))
                }

            case .refusal(let text):
                run.steps.append(trace)
                return run.finish(.refused(bounded(text)))

            case .empty:
                trace.error = "no text and no tool calls"
                run.steps.append(trace)
                return run.finish(.error("the model answered with no text and no tool calls (finish_reason \(result.response.firstChoice.finishReason))"))
            }
        }
    }

    private func makeRequest(_ messages: [ChatMessage], forceAnswer: Bool, output: AgentOutputSchema?) -> ChatCompletionRequest {
        ChatCompletionRequest(
            model: model,
            messages: messages,
            temperature: temperature,
            seed: seed,
            maxCompletionTokens: maxCompletionTokens,
            tools: tools.map(\.definition),
            toolChoice: tools.isEmpty ? nil : (forceAnswer ? .disabled : .auto),
            parallelToolCalls: tools.isEmpty || limits.maxToolCallsPerStep > 1 ? nil : false,
            responseFormat: output?.responseFormat
        )
    }

    private func summary(of request: ChatCompletionRequest) -> AgentStepTrace.RequestSummary {
        let toolChoice: String = switch request.toolChoice {
        case nil: "unset"
        case .auto: "auto"
        case .disabled: "none"
        case .required: "required"
        case .function(let name): "function:\(name)"
        }
        let format: String? = switch request.responseFormat {
        case nil: nil
        case .text: "text"
        case .jsonObject: "json_object"
        case .jsonSchema(let name, _, _): "json_schema:\(name)"
        }
        return .init(messageCount: request.messages.count, toolNames: request.tools.map(\.name), toolChoice: toolChoice, responseFormat: format)
    }

    private static func stopReason(for error: any Error) -> AgentStopReason {
        switch error {
        case is DeadlineReached: .deadline
        case is CancellationError: .cancelled
        case let error as LLMError:
            if case .cancelled = error.underlying { .cancelled } else { .error(bounded(error.description)) }
        default: .error(bounded(String(describing: error)))
        }
    }
}

/// The mutable state of one run.
private struct RunState {
    var messages: [ChatMessage]
    var steps: [AgentStepTrace] = []
    var usage = Usage.zero
    var ledger = CallLedger()
    /// Set when the step limit, not the model, ended the tool use.
    var forcedByStepLimit = false
    let start: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant?

    init(messages: [ChatMessage], start: ContinuousClock.Instant, timeLimit: Duration?) {
        self.messages = messages
        self.start = start
        self.deadline = timeLimit.map { start + $0 }
    }

    var completedReason: AgentStopReason { forcedByStepLimit ? .maxSteps : .completed }

    mutating func record(_ result: ChatCompletionResult, into trace: inout AgentStepTrace, latency: Duration) {
        let choice = result.response.firstChoice
        if let used = result.response.usage { usage += used }
        trace.usage = result.response.usage
        trace.latencyMs = latency.wholeMilliseconds
        trace.finishReason = choice.finishReason.rawValue
        trace.attempts = result.attempts
        trace.requestID = result.requestID
        trace.assistantText = (choice.message.content ?? choice.message.refusal).map { bounded($0) }
    }

    func finish(_ reason: AgentStopReason, text: String? = nil, output: JSONValue? = nil) -> AgentRunResult {
        AgentRunResult(
            finalText: text, output: output, stopReason: reason, messages: messages, steps: steps, usage: usage,
            duration: ContinuousClock.now - start
        )
    }
}
