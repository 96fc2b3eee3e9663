/// Builds the loop's requests and the short summaries of them kept in traces.
struct AgentRequests: Sendable {
    let model: String?
    let tools: [AnyAgentTool]
    let temperature: Double?
    let seed: Int?
    let maxCompletionTokens: Int?
    let singleToolCall: Bool
    /// Whether a step that offers tools may also carry the output's `response_format`, and tools are sent strict
    /// (OpenAI); without it tools go `lenient` (see `ToolDefinition.lenient`).
    var toolsWithSchema = true
    /// `tool_choice` of the first call, when it offers tools.
    var firstToolChoice: ToolChoice = .auto
    /// Whether the server takes a `tool_choice` that names a function. Without it, a call that must use one tool
    /// offers only that tool, with `required`: the same meaning in the form such servers (llama.cpp) understand.
    var namedToolChoice = true

    /// A step that may call tools, or (`forceAnswer`) the answer itself: `tool_choice: "none"` and the output's
    /// format. Without `toolsWithSchema`, tool steps carry no format, so servers that build one grammar for either
    /// tools or a format (llama.cpp) leave the model free to call tools.
    func make(_ messages: [ChatMessage], forceAnswer: Bool, output: AgentOutputSchema?, first: Bool = false) -> ChatCompletionRequest {
        var toolChoice: ToolChoice? = tools.isEmpty ? nil : (forceAnswer ? .disabled : (first ? firstToolChoice : .auto))
        var tools = self.tools
        var parallelToolCalls: Bool? = tools.isEmpty || !singleToolCall ? nil : false
        if case .function(let name)? = toolChoice {
            // One call of that tool is what the step asks for; llama.cpp's grammar ends the call section after it
            // only without parallel calls (else a small model repeats the call until its token limit).
            parallelToolCalls = false
            if !namedToolChoice {
                tools = tools.filter { $0.name == name }
                toolChoice = .required
            }
        }
        return ChatCompletionRequest(
            model: model,
            messages: messages,
            temperature: temperature,
            seed: seed,
            maxCompletionTokens: maxCompletionTokens,
            tools: toolsWithSchema ? tools.map(\.definition) : tools.map(\.definition.lenient),
            toolChoice: toolChoice,
            parallelToolCalls: parallelToolCalls,
            responseFormat: forceAnswer || tools.isEmpty || toolsWithSchema ? output?.responseFormat : nil
        )
    }

    /// Whether tool steps and the answer are separate requests: tools offered, an output wanted, and the
    /// server unable to take both in one request.
    func answersSeparately(_ output: AgentOutputSchema?) -> Bool { output != nil && !tools.isEmpty && !toolsWithSchema }

    /// The run's first two messages. When a step may answer without the schema in its request (tool steps sent
    /// without a format, or `json_object`, which does not carry it), the system prompt carries it, so the model
    /// knows the answer's shape from the first step and answers once, on the step it is ready.
    func opening(system: String, user: String, output: AgentOutputSchema?) -> [ChatMessage] {
        guard let output else { return [.system(system), .user(user)] }
        let formatHoldsSchema = if case .jsonSchema = output.responseFormat { true } else { false }
        let inPrompt = answersSeparately(output) || !formatHoldsSchema
        return [.system(inPrompt ? SchemaInPrompt.appending(output.schema, to: system) : system), .user(user)]
    }

    func summary(of request: ChatCompletionRequest) -> AgentStepTrace.RequestSummary {
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
}
