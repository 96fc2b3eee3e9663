import Foundation
import Core
package import Logging

/// The step loop: call the model with the tools, run the calls it asks for, feed the results back, and repeat until it
/// answers without tool calls or a bound is reached. The last allowed call is made with `tool_choice: "none"` so the
/// model has to answer. Tool faults go back to the model as error results; nothing here throws.
///
/// The parts are kept apart, as in the Agents SDK's run loop: the bounds checked before a call (`RunState`), the
/// requests (`AgentRequests`), tool execution (`ToolExecutor`) and what a non-tool turn means (`TurnResolution`).
package struct AgentRunner: Sendable {
    package let model: String?
    package let tools: [AnyAgentTool]
    package let limits: AgentLimits
    package var temperature: Double?
    package var seed: Int?
    package var maxCompletionTokens: Int?
    /// Whether a tool step may carry the output schema too (`LLMConfiguration.toolsWithSchema`). Without it, tool
    /// steps go without `response_format` and the system prompt carries the schema's text: an answer in it on a tool
    /// step ends the run; any other answer gets one call with `tool_choice: "none"` and the schema.
    package var toolsWithSchema = true
    /// `tool_choice` of the first call: `.required` makes the model look something up before it answers;
    /// `.function(name)` makes it call that tool first (one of `tools`, else the run stops before any call).
    package var firstToolChoice: ToolChoice = .auto
    /// Whether the server takes a `tool_choice` naming a function (`LLMConfiguration.namedToolChoice`).
    package var namedToolChoice = true
    private let client: any ChatCompleting
    private let logger: Logger

    /// - Parameter model: nil uses the client's default model.
    package init(
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

    /// Runs one task. With `output`, the final answer must be JSON matching it: one re-ask if it does not (and the step
    /// limit leaves room for it), then `.error`. When tool steps carry no schema, an answer on a tool step that does
    /// not match it gets one forced answer step first. At most `limits.maxSteps` model calls are made, all included.
    package func run(system: String, user: String, output: AgentOutputSchema? = nil) async -> AgentRunResult {
        let requests = requestBuilder()
        var run = RunState(messages: requests.opening(system: system, user: user, output: output), start: ContinuousClock.now,
                           timeLimit: limits.timeLimit)
        let executor = ToolExecutor(
            tools: tools, maxCallsPerStep: limits.maxToolCallsPerStep, maxConcurrent: limits.maxConcurrentToolCalls,
            maxResultBytes: limits.maxToolResultBytes
        )
        if case .function(let name) = firstToolChoice, !tools.contains(where: { $0.name == name }) {
            return run.finish(.error("the first tool_choice names '\(bounded(name, limit: 100))', which is not a tool of this run "
                                     + "(\(tools.map(\.name).joined(separator: ", ")))"))
        }
        let answersSeparately = requests.answersSeparately(output)
        while true {
            if let reason = run.stopBeforeCall(limits) { return run.finish(reason) }
            let isLast = run.nextCallIsLast(limits)
            let forced = isLast || run.reasking || run.answering
            if isLast, run.steps.contains(where: { !$0.toolCalls.isEmpty }) { run.forcedByStepLimit = true }
            let request = requests.make(run.messages, forceAnswer: forced, output: output, first: run.calls == 0)
            run.calls += 1
            var trace = AgentStepTrace(index: run.calls, request: requests.summary(of: request), toolCalls: [], latencyMs: 0)

            let callStart = ContinuousClock.now
            let result: ChatCompletionResult
            do {
                let (client, logger) = (self.client, self.logger)
                result = try await withDeadline(run.deadline) { try await client.complete(request, logger: logger) }
            } catch {
                run.attempts += (error as? LLMError)?.attempts ?? 1
                trace.latencyMs = (ContinuousClock.now - callStart).wholeMilliseconds
                let reason = Self.stopReason(for: error)
                trace.error = reason.description
                run.steps.append(trace)
                logger.debug("agent step failed", metadata: ["step": "\(run.calls)", "reason": "\(reason)"])
                return run.finish(reason)
            }
            let message = result.response.firstChoice.message
            run.record(result, into: &trace, latency: ContinuousClock.now - callStart)
            run.messages.append(message.asChatMessage)
            logger.debug("agent step", metadata: [
                "step": "\(run.calls)", "finish_reason": "\(result.response.firstChoice.finishReason)", "tool_calls": "\(message.toolCalls.count)",
            ])

            let turn = ModelTurn(message)
            if case .toolCalls(let calls) = turn {
                if forced {
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
                continue
            }

            if answersSeparately, !forced, case .answer(let text) = turn, let output, case .failure = output.check(text) {
                // An answer (often prose) on a step whose request had no schema: one forced step asks for it in the schema.
                guard run.calls < limits.maxSteps else {
                    trace.error = "the answer came on a tool step and the step limit leaves no call to ask for it in the schema"
                    run.steps.append(trace)
                    return run.finish(.error("the answer does not match the output schema and the step limit leaves no call for the answer step"), text: text)
                }
                trace.error = "an answer on a tool step, not in the output schema: asking for the answer in it"
                run.steps.append(trace)
                run.answering = true
                run.boundLastAnswer(limits.maxReaskEchoCharacters)
                run.messages.append(.user("Give your final answer now: only the JSON object for the schema '\(output.name)', with no other text."))
                continue
            }

            let resolution = TurnResolution.resolve(
                turn, output: output, reasking: run.reasking, canCallAgain: run.calls < limits.maxSteps,
                completed: run.completedReason, finishReason: "\(result.response.firstChoice.finishReason)"
            )
            switch resolution {
            case .finish(let reason, let text, let value):
                if case .error(let why) = reason { trace.error = why }
                run.steps.append(trace)
                return run.finish(reason, text: text, output: value)
            case .reask(let correction):
                trace.error = "the answer does not match the output schema"
                run.steps.append(trace)
                run.reasking = true
                run.boundLastAnswer(limits.maxReaskEchoCharacters)
                run.messages.append(.user(correction))
            }
        }
    }

    /// The request `run` sends first for the same task, without sending it: what `prompts render --prompt assistant`
    /// prints. Built by the same code as the loop's own first call.
    package func firstRequest(system: String, user: String, output: AgentOutputSchema? = nil) -> ChatCompletionRequest {
        let requests = requestBuilder()
        let run = RunState(messages: requests.opening(system: system, user: user, output: output), start: ContinuousClock.now,
                           timeLimit: limits.timeLimit)
        return requests.make(run.messages, forceAnswer: run.nextCallIsLast(limits), output: output, first: true)
    }

    private func requestBuilder() -> AgentRequests {
        var requests = AgentRequests(
            model: model, tools: tools, temperature: temperature, seed: seed, maxCompletionTokens: maxCompletionTokens,
            singleToolCall: limits.maxToolCallsPerStep == 1
        )
        requests.toolsWithSchema = toolsWithSchema
        requests.firstToolChoice = firstToolChoice
        requests.namedToolChoice = namedToolChoice
        return requests
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
