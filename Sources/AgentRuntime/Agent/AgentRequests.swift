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

    /// A step that may call tools, or (`forceAnswer`) the answer itself: `tool_choice: "none"` and the output's
    /// format. Without `toolsWithSchema`, tool steps carry no format, so servers that build one grammar for either
    /// tools or a format (llama.cpp) leave the model free to call tools.
    func make(_ messages: [ChatMessage], forceAnswer: Bool, output: AgentOutputSchema?, first: Bool = false) -> ChatCompletionRequest {
        let toolChoice: ToolChoice? = tools.isEmpty ? nil : (forceAnswer ? .disabled : (first ? firstToolChoice : .auto))
        return ChatCompletionRequest(
            model: model,
            messages: messages,
            temperature: temperature,
            seed: seed,
            maxCompletionTokens: maxCompletionTokens,
            tools: toolsWithSchema ? tools.map(\.definition) : tools.map(\.definition.lenient),
            toolChoice: toolChoice,
            parallelToolCalls: tools.isEmpty || !singleToolCall ? nil : false,
            responseFormat: forceAnswer || tools.isEmpty || toolsWithSchema ? output?.responseFormat : nil
        )
    }

    /// Whether tool steps and the answer are separate requests: tools offered, an output wanted, and the
    /// server unable to take both in one request.
    func answersSeparately(_ output: AgentOutputSchema?) -> Bool { output != nil && !tools.isEmpty && !toolsWithSchema }

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
