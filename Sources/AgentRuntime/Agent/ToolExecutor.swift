import Foundation
import Core

/// The outcome of one tool call, ready to go back to the model as a `tool` message.
struct ToolCallOutcome: Sendable {
    var call: ToolCall
    var status: ToolCallStatus
    /// The tool's result, or `{"error": "..."}`.
    let content: JSONValue
    /// `content` serialized, once: the size check, the message and the trace all need it.
    let text: String
    var latency: Duration

    init(call: ToolCall, status: ToolCallStatus, content: JSONValue, text: String? = nil, latency: Duration) {
        self.call = call
        self.status = status
        self.content = content
        self.text = text ?? content.serialized()
        self.latency = latency
    }

    var message: ChatMessage { .tool(toolCallID: call.id, content: text) }

    var trace: ToolCallTrace {
        ToolCallTrace(
            id: call.id, name: call.name, arguments: bounded(call.arguments), result: bounded(text),
            status: status, latencyMs: latency.wholeMilliseconds
        )
    }

    static func failure(_ call: ToolCall, _ status: ToolCallStatus, _ message: String) -> ToolCallOutcome {
        ToolCallOutcome(call: call, status: status, content: ["error": .string(bounded(message))], latency: .zero)
    }
}

/// Calls already made in a run, keyed by tool name and canonical arguments, to catch a model stuck repeating itself.
struct CallLedger: Sendable {
    private var seen: Set<String> = []
    /// Calls refused as repeats so far.
    private(set) var repeats = 0

    /// Records the call; returns false if an identical call was seen before.
    mutating func admit(name: String, canonicalArguments: String) -> Bool {
        let inserted = seen.insert(name + "\u{0}" + canonicalArguments).inserted
        if !inserted { repeats += 1 }
        return inserted
    }
}

/// Runs one turn's tool calls: each is checked (known tool, JSON arguments, schema, not a repeat), the runnable ones
/// run in parallel under a concurrency cap, and outcomes come back in the model's call order. Faults never throw:
/// they become error results the model can read and correct.
struct ToolExecutor: Sendable {
    let tools: [String: AnyAgentTool]
    let maxCallsPerStep: Int
    let maxConcurrent: Int
    /// Serialized bytes of one result the model may see; a larger result becomes an error asking for less.
    let maxResultBytes: Int

    init(tools: [AnyAgentTool], maxCallsPerStep: Int, maxConcurrent: Int, maxResultBytes: Int = 32 * 1024) {
        self.tools = Dictionary(tools.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.maxCallsPerStep = maxCallsPerStep
        self.maxConcurrent = maxConcurrent
        self.maxResultBytes = maxResultBytes
    }

    /// One call after checking: either ready to run, or already answered with an error.
    enum Plan: Sendable {
        case run(ToolCall, AnyAgentTool, JSONValue)
        case done(ToolCallOutcome)
    }

    /// Checks every call in order, recording each in `ledger`. Synchronous, so the ledger stays consistent.
    func plan(_ calls: [ToolCall], ledger: inout CallLedger) -> [Plan] {
        calls.enumerated().map { index, call in plan(call, index: index, ledger: &ledger) }
    }

    /// Runs the runnable plans in parallel (at most `maxConcurrent` at once); outcomes keep the plans' order.
    func run(_ plans: [Plan]) async -> [ToolCallOutcome] {
        var outcomes = [ToolCallOutcome?](repeating: nil, count: plans.count)
        var runnable: [(index: Int, call: ToolCall, tool: AnyAgentTool, arguments: JSONValue)] = []
        for (index, plan) in plans.enumerated() {
            switch plan {
            case .done(let outcome): outcomes[index] = outcome
            case .run(let call, let tool, let arguments): runnable.append((index, call, tool, arguments))
            }
        }
        let limitBytes = maxResultBytes
        if runnable.count == 1, let job = runnable.first {
            // One call (the usual turn) runs in this task: a child task would cost two thread wake-ups for nothing.
            outcomes[job.index] = await Self.run(job.tool, job.arguments, call: job.call, maxResultBytes: limitBytes)
        } else {
            for (index, outcome) in await runInParallel(runnable) { outcomes[index] = outcome }
        }
        return plans.enumerated().map { index, plan in
            if let outcome = outcomes[index] { return outcome }
            guard case .run(let call, _, _) = plan else { preconditionFailure("a finished plan always has an outcome") }
            return .failure(call, .cancelled, "the tool did not finish")
        }
    }

    /// The calls as child tasks, at most `maxConcurrent` at once; outcomes with the plans' indexes, in finishing order.
    private func runInParallel(_ runnable: [(index: Int, call: ToolCall, tool: AnyAgentTool, arguments: JSONValue)]) async -> [(Int, ToolCallOutcome)] {
        let limit = maxConcurrent
        let limitBytes = maxResultBytes
        return await withTaskGroup(of: (Int, ToolCallOutcome).self) { group in
            var finished: [(Int, ToolCallOutcome)] = []
            var next = 0
            while next < min(limit, runnable.count) {
                let job = runnable[next]
                group.addTask { (job.index, await Self.run(job.tool, job.arguments, call: job.call, maxResultBytes: limitBytes)) }
                next += 1
            }
            while let result = await group.next() {
                finished.append(result)
                if next < runnable.count {
                    let job = runnable[next]
                    group.addTask { (job.index, await Self.run(job.tool, job.arguments, call: job.call, maxResultBytes: limitBytes)) }
                    next += 1
                }
            }
            return finished
        }
    }

    private func plan(_ call: ToolCall, index: Int, ledger: inout CallLedger) -> Plan {
        guard index < maxCallsPerStep else {
            return .done(.failure(call, .overLimit, "too many tool calls in one turn: only the first \(maxCallsPerStep) ran; call this again in a later turn if still needed"))
        }
        let parsed = Result { try JSONValue.parse(call.arguments) }
        let canonical = (try? parsed.get())?.serialized(sortedKeys: true) ?? call.arguments
        guard ledger.admit(name: call.name, canonicalArguments: canonical) else {
            return .done(.failure(call, .repeated, "repeated call: '\(call.name)' was already called with these exact arguments earlier in this run, and its result is above; it was not run again. Use that result, or answer now."))
        }
        guard let tool = tools[call.name] else {
            let known = tools.keys.sorted().joined(separator: ", ")
            return .done(.failure(call, .unknownTool, "unknown tool '\(call.name)'; the available tools are: \(known.isEmpty ? "none" : known)"))
        }
        let arguments: JSONValue
        do {
            arguments = try parsed.get()
        } catch {
            return .done(.failure(call, .invalidJSON, "the arguments are not valid JSON (\(error)); send a JSON object matching the tool's parameters"))
        }
        let violations = tool.validator.validate(arguments)
        guard violations.isEmpty else {
            let list = violations.prefix(8).map(\.description).joined(separator: "; ")
            return .done(.failure(call, .invalidArguments, "the arguments do not match the tool's parameters schema: \(list)"))
        }
        return .run(call, tool, arguments)
    }

    private static func run(_ tool: AnyAgentTool, _ arguments: JSONValue, call: ToolCall, maxResultBytes: Int) async -> ToolCallOutcome {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let result = try await tool.run(arguments)
            let text = result.serialized()
            let size = text.utf8.count
            guard size <= maxResultBytes else {
                var outcome = ToolCallOutcome.failure(
                    call, .resultTooLarge,
                    "the result was \(size) bytes, over the \(maxResultBytes)-byte limit, and was not sent; call again asking for less (a narrower date range or a smaller limit)"
                )
                outcome.latency = clock.now - start
                return outcome
            }
            return ToolCallOutcome(call: call, status: .ok, content: result, text: text, latency: clock.now - start)
        } catch is CancellationError {
            var outcome = ToolCallOutcome.failure(call, .cancelled, "the tool was cancelled before it finished")
            outcome.latency = clock.now - start
            return outcome
        } catch {
            var outcome = ToolCallOutcome.failure(call, .toolFailed, "the tool failed: \(error)")
            outcome.latency = clock.now - start
            return outcome
        }
    }
}
