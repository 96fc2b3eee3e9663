/// Builds the loop's requests and the short summaries of them kept in traces.
struct AgentRequests: Sendable {
    let model: String?
    let tools: [AnyAgentTool]
    let temperature: Double?
    let seed: Int?
    let maxCompletionTokens: Int?
    let singleToolCall: Bool

    func make(_ messages: [ChatMessage], forceAnswer: Bool, output: AgentOutputSchema?) -> ChatCompletionRequest {
        ChatCompletionRequest(
            model: model,
            messages: messages,
            temperature: temperature,
            seed: seed,
            maxCompletionTokens: maxCompletionTokens,
            tools: tools.map(\.definition),
            toolChoice: tools.isEmpty ? nil : (forceAnswer ? .disabled : .auto),
            parallelToolCalls: tools.isEmpty || !singleToolCall ? nil : false,
            responseFormat: output?.responseFormat
        )
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
