package import AgentRuntime
import Core
import Logging
package import PromptKit

/// Asks an OpenAI-compatible model for a feature's answer in its schema, validates it locally, and re-asks
/// once with only the last answer, cut to `AnswerExcerpt.defaultLimit` characters, and its errors (never a
/// growing history). A cut-off answer fails at once.
package struct LLMAnswerProvider: AnswerProvider {
    package let client: any ChatCompleting
    package let structuredOutput: StructuredOutputMode
    /// Replaces every prompt's model (e.g. `--model`, `OPENAI_MODEL`).
    package let modelOverride: String?
    /// Send the schema's size caps too (`LLMConfiguration.schemaBounds`): for servers that compile them into a grammar.
    package var schemaBounds = false
    /// The server (host and port) when it is not OpenAI's API: list prices do not apply to it, so its cost is unknown
    /// (`RunCost`). Nil for OpenAI, and for clients built without a configuration (tests' fake servers are priced).
    package var unpricedServer: String?
    /// The deployment's price for the server's tokens (`MESSAGEAI_PRICE_*`): when set, every cost is these prices.
    package var price: TokenPrice?
    let logger = Logger(label: "messageai.extractors")

    package init(client: any ChatCompleting, structuredOutput: StructuredOutputMode, modelOverride: String? = nil) {
        self.client = client
        self.structuredOutput = structuredOutput
        self.modelOverride = modelOverride
    }

    package var name: String { "openai" }

    package func modelName(for prompt: Prompt) -> String { modelOverride ?? prompt.model }

    package func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        try await ask(makeRequest(request), feature: request.feature, what: "answer", logger: request.logger) { json in
            // Items over a cap are cut, not re-asked for: the engine keeps the first ones and notes the rest. The `known`
            // list of a request that sent one is decoded item by item, so a bad entry costs that entry only.
            let items = request.sentSchema == nil ? json : KnownItems.split(json).rest
            return (request.feature, request.schema.validate(request.schema.truncatingArrays(items).value).map(\.description))
        }
    }

    /// Sends `base` and checks the answer with `problems` (the feature to blame and the errors; none means valid).
    /// An invalid answer is re-asked once with only that answer and its errors; a second invalid one fails with
    /// `invalidOutput`. Shared by per-feature and combined requests (`what` names which in the log).
    func ask(_ base: ChatCompletionRequest, feature: ExtractionFeature, what: String, logger caller: Logger?,
             problems: (JSONValue) -> (feature: ExtractionFeature, errors: [String])) async throws -> ProviderAnswer {
        let logger = caller ?? self.logger
        var answer = ProviderAnswer(json: .null)
        let first = try await complete(base, feature: feature, logger: caller, into: &answer)
        let firstCheck = Self.check(first, feature: feature, problems)
        if firstCheck.errors.isEmpty {
            answer.json = firstCheck.json
            return answer
        }
        ModelAnswerLog.current?.add(ModelAnswer(feature: firstCheck.feature.rawValue, attempt: 1,
                                                problem: firstCheck.errors.prefix(5).joined(separator: "; "), text: first))
        logger.info("re-asking once after an invalid \(what)", metadata: [
            "feature": "\(firstCheck.feature.rawValue)", "errors": "\(firstCheck.errors.count)"])
        var retry = base
        retry.messages += [
            .assistant(content: AnswerExcerpt.cut(first), toolCalls: []),
            .user(Self.reaskText(firstCheck.errors)),
        ]
        answer.reasked = true
        let second = try await complete(retry, feature: feature, logger: caller, attempt: 2, into: &answer)
        let secondCheck = Self.check(second, feature: feature, problems)
        guard secondCheck.errors.isEmpty else {
            ModelAnswerLog.current?.add(ModelAnswer(feature: secondCheck.feature.rawValue, attempt: 2,
                                                    problem: secondCheck.errors.prefix(5).joined(separator: "; "), text: second))
            throw ExtractionError.invalidOutput(feature: secondCheck.feature, errors: secondCheck.errors)
        }
        answer.json = secondCheck.json
        return answer
    }

    /// The answer parsed and checked; text that is not JSON is blamed on `feature`.
    static func check(_ content: String, feature: ExtractionFeature,
                      _ problems: (JSONValue) -> (feature: ExtractionFeature, errors: [String]))
        -> (json: JSONValue, feature: ExtractionFeature, errors: [String]) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(stripCodeFence(content))
        } catch {
            return (.null, feature, ["$: the answer is not JSON (\(error))"])
        }
        let found = problems(json)
        return (json, found.feature, found.errors)
    }

    static func reaskText(_ problems: [String]) -> String {
        "Your answer is not valid for the required JSON schema:\n"
            + problems.prefix(20).map { "- \($0.count > 300 ? String($0.prefix(300)) + "…" : $0)" }.joined(separator: "\n")
            + "\nReply again with only the corrected JSON object."
    }

    func makeRequest(_ request: AnswerRequest) -> ChatCompletionRequest {
        let name = request.rendered.outputName ?? request.feature.rawValue
        // JSONValue is ExpressibleByNilLiteral: no `?:` with a nil here, or the wire schema would be JSON null.
        if let sent = request.sentSchema { return makeRequest(request.rendered, schema: sent, name: name) }
        return makeRequest(request.rendered, schema: request.prompt.outputSchema ?? .object([:]),
                           wireSchema: request.prompt.wireOutputSchema, name: name)
    }

    /// The chat request for a rendered prompt answering in `schema` (strict `json_schema`, or the schema in the prompt).
    /// `wireSchema` is `schema`'s strict wire form when the caller has it already.
    func makeRequest(_ rendered: RenderedPrompt, schema: JSONValue, wireSchema: JSONValue? = nil, name: String) -> ChatCompletionRequest {
        var messages: [ChatMessage] = rendered.messages.map { message in
            switch message.role {
            case .system: .system(message.content)
            case .user: .user(message.content)
            case .assistant: .assistant(content: message.content, toolCalls: [])
            }
        }
        // Without server-side schema enforcement the schema must be in the prompt; validation still follows.
        if structuredOutput == .jsonObject, case .system(let text)? = messages.first {
            messages[0] = .system(SchemaInPrompt.appending(schema, to: text))
        }
        // The prompts say what the fields mean, so the strict wire schema leaves the descriptions home too.
        let format = structuredOutput.responseFormat(
            name: name, schema: schema,
            wireSchema: schemaBounds
                ? StrictSchemaLint.boundedWireSchema(schema, compact: true)
                : wireSchema ?? StrictSchemaLint.compactWireSchema(schema))
        return ChatCompletionRequest(
            model: modelOverride ?? rendered.model,
            messages: messages,
            temperature: rendered.temperature,
            seed: rendered.seed,
            maxCompletionTokens: rendered.maxTokens,
            responseFormat: format)
    }

    /// `attempt`: 1 for the first request, 2 for the re-ask (as `ModelAnswer` records it).
    func complete(_ chat: ChatCompletionRequest, feature: ExtractionFeature, logger: Logger?, attempt: Int = 1,
                  into answer: inout ProviderAnswer) async throws -> String {
        let result = if let logger { try await client.complete(chat, logger: logger) } else { try await client.complete(chat) }
        answer.requests += 1
        answer.servedModel = result.response.servedModel ?? answer.servedModel
        if let usage = result.response.usage { answer.usage += TokenUsage(usage) }
        let choice = result.response.firstChoice
        if choice.finishReason == .length {
            ModelAnswerLog.current?.add(ModelAnswer(feature: feature.rawValue, attempt: attempt, problem: "cut off at the token limit",
                                                    text: choice.message.content ?? ""))
            throw ExtractionError.truncated(feature: feature, maxTokens: chat.maxCompletionTokens)
        }
        if let refusal = choice.message.refusal, !refusal.isEmpty {
            ModelAnswerLog.current?.add(ModelAnswer(feature: feature.rawValue, attempt: attempt, problem: "a refusal", text: refusal))
            throw ExtractionError.refused(feature: feature, reason: refusal)
        }
        return choice.message.content ?? ""
    }

    /// Some local models wrap JSON in a Markdown fence even in JSON mode.
    static func stripCodeFence(_ text: String) -> String {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard body.hasPrefix("```") else { return body }
        body = String(body.drop(while: { $0 != "\n" }).dropFirst())
        if body.hasSuffix("```") { body = String(body.dropLast(3)) }
        return body.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
