package import Core

/// A Chat Completions request. Optional fields left `nil` are not sent at all, so servers apply their own defaults.
package struct ChatCompletionRequest: Sendable, Hashable {
    /// `nil` means the configuration's default model.
    package var model: String?
    package var messages: [ChatMessage]
    package var temperature: Double?
    package var seed: Int?
    package var maxCompletionTokens: Int?
    package var tools: [ToolDefinition]
    package var toolChoice: ToolChoice?
    package var parallelToolCalls: Bool?
    package var responseFormat: ResponseFormat?

    package init(
        model: String? = nil,
        messages: [ChatMessage],
        temperature: Double? = nil,
        seed: Int? = nil,
        maxCompletionTokens: Int? = nil,
        tools: [ToolDefinition] = [],
        toolChoice: ToolChoice? = nil,
        parallelToolCalls: Bool? = nil,
        responseFormat: ResponseFormat? = nil
    ) {
        self.model = model
        self.messages = messages
        self.temperature = temperature
        self.seed = seed
        self.maxCompletionTokens = maxCompletionTokens
        self.tools = tools
        self.toolChoice = toolChoice
        self.parallelToolCalls = parallelToolCalls
        self.responseFormat = responseFormat
    }

    /// The JSON body. `tokenField` names the max-tokens key because providers disagree on it.
    package func body(tokenField: MaxTokensField = .maxCompletionTokens) -> JSONValue {
        var object = JSONObject()
        if let model { object["model"] = .string(model) }
        object["messages"] = .array(messages.map(\.json))
        if let temperature { object["temperature"] = .number(temperature) }
        if let seed { object["seed"] = .integer(Int64(seed)) }
        if let maxCompletionTokens { object[tokenField.rawValue] = .integer(Int64(maxCompletionTokens)) }
        if !tools.isEmpty { object["tools"] = .array(tools.map(\.json)) }
        if let toolChoice { object["tool_choice"] = toolChoice.json }
        if let parallelToolCalls { object["parallel_tool_calls"] = .bool(parallelToolCalls) }
        if let responseFormat { object["response_format"] = responseFormat.json }
        return .object(object)
    }
}

/// The name of the max-tokens field: OpenAI wants `max_completion_tokens`; llama.cpp and older vLLM know only `max_tokens`.
package enum MaxTokensField: String, Sendable, Hashable, CaseIterable {
    case maxCompletionTokens = "max_completion_tokens"
    case maxTokens = "max_tokens"
}

/// A function the model may call. `parameters` is a JSON Schema; with `strict` it must follow Structured Outputs rules.
package struct ToolDefinition: Sendable, Hashable {
    package var name: String
    package var description: String
    package var parameters: JSONValue
    package var strict: Bool

    package init(name: String, description: String, parameters: JSONValue, strict: Bool = true) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.strict = strict
    }

    package var json: JSONValue {
        var function: JSONObject = ["name": .string(name)]
        if !description.isEmpty { function["description"] = .string(description) }
        function["parameters"] = parameters
        // Absent means false; some servers take the key as a reason to skip building a tool-call grammar.
        if strict { function["strict"] = true }
        return ["type": "function", "function": .object(function)]
    }

    /// This tool for a server without Structured Outputs for tools (llama.cpp): not strict, and without
    /// `additionalProperties: false`, with which llama.cpp builds no tool-call grammar and the model cannot call it.
    /// The arguments are still checked against the full schema when the call is run.
    package var lenient: ToolDefinition {
        ToolDefinition(name: name, description: description, parameters: Self.withoutClosedObjects(parameters), strict: false)
    }

    static func withoutClosedObjects(_ schema: JSONValue) -> JSONValue {
        switch schema {
        case .object(let object):
            var copy = JSONObject()
            for (key, value) in object where !(key == "additionalProperties" && value == .bool(false)) {
                copy[key] = withoutClosedObjects(value)
            }
            return .object(copy)
        case .array(let items):
            return .array(items.map(withoutClosedObjects))
        default:
            return schema
        }
    }
}

/// Whether and which tool the model must call.
package enum ToolChoice: Sendable, Hashable {
    case auto
    /// `"none"` on the wire: the model must answer without calling tools. Not named `none`, which would be
    /// read as `Optional.none` wherever a `ToolChoice?` is expected.
    case disabled
    case required
    case function(String)

    package var json: JSONValue {
        switch self {
        case .auto: "auto"
        case .disabled: "none"
        case .required: "required"
        case .function(let name): ["type": "function", "function": ["name": .string(name)]]
        }
    }
}

/// How the answer must be shaped.
package enum ResponseFormat: Sendable, Hashable {
    case text
    /// Any JSON object. `schema` is an extension some servers (llama-cpp-python) use to constrain output; OpenAI ignores it
    /// only when absent, so send it only to servers that accept it.
    case jsonObject(schema: JSONValue?)
    /// Structured Outputs: the server enforces `schema` when `strict`.
    case jsonSchema(name: String, schema: JSONValue, strict: Bool)

    package var json: JSONValue {
        switch self {
        case .text:
            return ["type": "text"]
        case .jsonObject(let schema):
            var object: JSONObject = ["type": "json_object"]
            if let schema { object["schema"] = schema }
            return .object(object)
        case .jsonSchema(let name, let schema, let strict):
            return ["type": "json_schema", "json_schema": ["name": .string(name), "schema": schema, "strict": .bool(strict)]]
        }
    }
}
