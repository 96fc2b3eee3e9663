package import Foundation
package import Core

/// Where and how to reach one OpenAI-compatible provider. Provider quirks live here, not in callers.
package struct LLMConfiguration: Sendable {
    /// `nil` for local servers that need no key; the `Authorization` header is then not sent.
    package var apiKey: String?
    /// The API root, e.g. `https://api.openai.com/v1`; requests go to `{baseURL}/chat/completions`.
    package var baseURL: URL
    /// Used when a request names no model.
    package var defaultModel: String?
    package var structuredOutput: StructuredOutputMode
    package var maxTokensField: MaxTokensField
    /// The limit for one HTTP attempt (not the whole call with its retries; see `RetryPolicy.totalBudget`).
    package var requestTimeout: Duration
    package var retryPolicy: RetryPolicy
    /// Requests in flight to this server from the whole process (`ServerConcurrencyLimit`).
    package var maxConcurrency: Int
    /// Whether one request may carry both `tools` and a `response_format`. OpenAI can; llama.cpp then builds only
    /// the response-format grammar and the model can never call a tool, so other servers get tool steps without a
    /// format and a final step with `tool_choice: "none"` and the schema.
    package var toolsWithSchema: Bool
    /// Whether a `json_schema` response format carries the schema's size caps (`maxLength`, `maxItems`). OpenAI's
    /// strict mode refuses `maxLength`, so it gets the schema without them (checked locally). llama.cpp and vLLM
    /// compile the caps into the answer's grammar, which is what bounds a rambling model's answer there.
    package var schemaBounds: Bool
    /// Whether `tool_choice` may name a function (`{"type": "function", "function": {"name": …}}`). llama.cpp's server
    /// takes only the strings and reads an object as `auto`; without it a step that must call one tool offers only
    /// that tool, with `required`.
    package var namedToolChoice: Bool
    /// The deployment's price for this server's tokens (`MESSAGEAI_PRICE_*`); nil: OpenAI's list prices for OpenAI's
    /// API, unknown for any other server.
    package var price: TokenPrice?

    package static let openAIBaseURL = URL(string: "https://api.openai.com/v1")!

    package init(
        apiKey: String? = nil,
        baseURL: URL = LLMConfiguration.openAIBaseURL,
        defaultModel: String? = nil,
        structuredOutput: StructuredOutputMode = .jsonSchema,
        maxTokensField: MaxTokensField = .maxCompletionTokens,
        requestTimeout: Duration? = nil,
        retryPolicy: RetryPolicy = RetryPolicy.modelCalls(),
        maxConcurrency: Int? = nil,
        toolsWithSchema: Bool? = nil,
        schemaBounds: Bool? = nil,
        namedToolChoice: Bool? = nil
    ) {
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.baseURL = baseURL
        self.defaultModel = defaultModel
        self.structuredOutput = structuredOutput
        self.maxTokensField = maxTokensField
        let openAI = Self.isOpenAI(baseURL)
        self.requestTimeout = requestTimeout ?? (openAI ? .seconds(60) : .seconds(120))
        self.retryPolicy = retryPolicy
        self.maxConcurrency = max(1, maxConcurrency ?? (openAI ? Self.openAIDefaultConcurrency : 1))
        self.toolsWithSchema = toolsWithSchema ?? openAI
        self.schemaBounds = schemaBounds ?? !openAI
        self.namedToolChoice = namedToolChoice ?? openAI
    }

    /// This configuration with a command's flags over the variables they override (`--llm-timeout`,
    /// `--llm-concurrency`, `--llm-retry-budget`; nil keeps the variable's value). The flags are range-checked where
    /// they are parsed, like the variables in `fromEnvironment`.
    package func overriding(timeoutSeconds: Double?, concurrency: Int?, retryBudgetSeconds: Double?) -> LLMConfiguration {
        var copy = self
        if let timeoutSeconds { copy.requestTimeout = .milliseconds(ofSeconds: timeoutSeconds, rounding: .towardZero) }
        if let concurrency { copy.maxConcurrency = max(1, concurrency) }
        if let retryBudgetSeconds { copy.retryPolicy.totalBudget = .milliseconds(ofSeconds: retryBudgetSeconds, rounding: .towardZero) }
        return copy
    }

    /// OpenAI's default: room for the widest scan (64 conversations, five feature requests each) and its assistant
    /// runs, so an OpenAI run is paced by `--concurrency` and the rate limiter (`--rpm`, `--tpm`), not by this line.
    package static let openAIDefaultConcurrency = 352

    /// True for OpenAI's own API, whose defaults differ (more concurrency, tools together with a schema).
    package static func isOpenAI(_ url: URL) -> Bool { url.host?.lowercased() == "api.openai.com" }

    /// The process's one concurrency limit for this server.
    var concurrencyLimit: ServerConcurrencyLimit { .shared(for: baseURL, limit: maxConcurrency) }

    /// The process's one circuit breaker for this server.
    package var circuitBreaker: CircuitBreaker { .shared(for: baseURL) }

    /// `{baseURL}/chat/completions`, tolerating a trailing slash on the base.
    package var chatCompletionsURL: URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/chat/completions")!
    }

    /// The settings `fromEnvironment` reads besides the key, base URL and model, for help texts and errors.
    package static let timeoutSetting = "OPENAI_TIMEOUT_SECONDS"
    package static let concurrencySetting = "OPENAI_MAX_CONCURRENCY"
    package static let retryBudgetSetting = "OPENAI_RETRY_BUDGET_SECONDS"
    package static let toolsWithSchemaSetting = "OPENAI_TOOLS_WITH_SCHEMA"
    package static let schemaBoundsSetting = "OPENAI_SCHEMA_BOUNDS"
    package static let namedToolChoiceSetting = "OPENAI_NAMED_TOOL_CHOICE"
    package static let baseURLSetting = "OPENAI_BASE_URL"
    package static let structuredOutputSetting = "OPENAI_STRUCTURED_OUTPUT"
    package static let maxTokensFieldSetting = "OPENAI_MAX_TOKENS_FIELD"

    /// Checks one setting `fromEnvironment` reads as it would read it, whether or not an LLM is configured: the
    /// process's table of settings validates every variable with this before a command starts.
    package static func check(_ name: String, _ value: String) throws(LLMSettingError) {
        var environment = [name: value]
        if name != baseURLSetting { environment[baseURLSetting] = "http://127.0.0.1/v1" }
        _ = try fromEnvironment(environment)
    }

    /// Whether `apiKey` can go into an `Authorization` header: visible ASCII only. A CR or LF would split the header
    /// (the HTTP client refuses it, printing the value), so such a key is refused before anything is sent.
    package static func isSendable(apiKey: String) -> Bool {
        !apiKey.isEmpty && apiKey.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) }
    }

    /// Reads `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL`, `OPENAI_STRUCTURED_OUTPUT` (json_schema|json_object),
    /// `OPENAI_MAX_TOKENS_FIELD` (max_completion_tokens|max_tokens), `OPENAI_TIMEOUT_SECONDS` (one attempt),
    /// `OPENAI_RETRY_BUDGET_SECONDS` (all attempts of one call), `OPENAI_MAX_CONCURRENCY` (requests in flight) and
    /// `OPENAI_TOOLS_WITH_SCHEMA`, `OPENAI_SCHEMA_BOUNDS` and `OPENAI_NAMED_TOOL_CHOICE` (true|false). Returns nil when neither a key nor a base URL is set, meaning no LLM
    /// is configured. Throws, naming the variable and what it takes, for any other value (a malformed number, a mode
    /// spelled otherwise such as `json-object`, a base URL that is not http(s)).
    package static func fromEnvironment(_ env: [String: String]) throws(LLMSettingError) -> LLMConfiguration? {
        func value(_ name: String) -> String? {
            guard let raw = env[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        let key = value("OPENAI_API_KEY")
        if let key, !isSendable(apiKey: key) {
            // Not echoed: it is the secret.
            throw LLMSettingError(name: "OPENAI_API_KEY", value: nil,
                                  expected: "a key of printable characters with no spaces or line breaks (the value is not shown)")
        }
        let base = try value(baseURLSetting).map { raw throws(LLMSettingError) -> URL in
            guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = url.host, !host.isEmpty else {
                // Not echoed: a URL may carry credentials.
                throw LLMSettingError(name: baseURLSetting, value: nil, expected: "an http(s) URL such as http://127.0.0.1:8080/v1")
            }
            return url
        }
        guard key != nil || base != nil else {
            _ = try TokenPrice.fromEnvironment(env)  // checked all the same
            return nil
        }
        func word<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws(LLMSettingError) -> T? where T.RawValue == String {
            guard let raw = value(name) else { return nil }
            guard let parsed = T(rawValue: raw) else {
                throw LLMSettingError(name: name, value: raw, expected: T.allCases.map(\.rawValue).joined(separator: " or "))
            }
            return parsed
        }
        func number(_ name: String, in range: ClosedRange<Double>) throws(LLMSettingError) -> Double? {
            guard let raw = value(name) else { return nil }
            guard let parsed = Double(raw), range.contains(parsed) else {
                throw LLMSettingError(name: name, value: raw, expected: "a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return parsed
        }
        func flag(_ name: String) throws(LLMSettingError) -> Bool? {
            guard let raw = value(name) else { return nil }
            switch raw.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw LLMSettingError(name: name, value: raw, expected: "true or false")
            }
        }
        let toolsWithSchema = try flag(toolsWithSchemaSetting)
        let schemaBounds = try flag(schemaBoundsSetting)
        let namedToolChoice = try flag(namedToolChoiceSetting)
        var retryPolicy = RetryPolicy.modelCalls()
        if let budget = try number(retryBudgetSetting, in: 1...86_400) { retryPolicy.totalBudget = .milliseconds(ofSeconds: budget, rounding: .towardZero) }
        var configuration = LLMConfiguration(
            apiKey: key,
            baseURL: base ?? openAIBaseURL,
            defaultModel: value("OPENAI_MODEL"),
            structuredOutput: try word(structuredOutputSetting, StructuredOutputMode.self) ?? .jsonSchema,
            maxTokensField: try word(maxTokensFieldSetting, MaxTokensField.self) ?? .maxCompletionTokens,
            requestTimeout: try number(timeoutSetting, in: 1...3_600).map { .milliseconds(ofSeconds: $0, rounding: .towardZero) },
            retryPolicy: retryPolicy,
            maxConcurrency: try number(concurrencySetting, in: 1...1_024).map { Int($0) },
            toolsWithSchema: toolsWithSchema,
            schemaBounds: schemaBounds,
            namedToolChoice: namedToolChoice
        )
        configuration.price = try TokenPrice.fromEnvironment(env)
        return configuration
    }
}

extension LLMConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    /// Safe to log: the key is shown only as set or not.
    package var description: String {
        "LLMConfiguration(baseURL: \(baseURL.absoluteString), apiKey: \(apiKey == nil ? "none" : "[redacted]"), "
            + "defaultModel: \(defaultModel ?? "none"), structuredOutput: \(structuredOutput.rawValue), "
            + "maxTokensField: \(maxTokensField.rawValue), requestTimeout: \(requestTimeout), maxConcurrency: \(maxConcurrency), "
            + "toolsWithSchema: \(toolsWithSchema), schemaBounds: \(schemaBounds), namedToolChoice: \(namedToolChoice))"
    }

    package var debugDescription: String { description }
}

/// How a provider supports structured answers: strict `json_schema` (OpenAI) or only `json_object` (llama.cpp).
package enum StructuredOutputMode: String, Sendable, Hashable, CaseIterable {
    case jsonSchema = "json_schema"
    case jsonObject = "json_object"

    /// The response format that asks for JSON matching `schema`. OpenAI's strict `json_schema` refuses some keywords
    /// (such as `maxLength`), so it carries `wireSchema`, the schema without them (or with them, for a server that
    /// enforces them: `LLMConfiguration.schemaBounds`); the answer is still validated against the full one. With `json_object` the server may not enforce the schema: the caller must also describe it in
    /// the prompt.
    package func responseFormat(name: String, schema: JSONValue, wireSchema: @autoclosure () -> JSONValue) -> ResponseFormat {
        switch self {
        case .jsonSchema: .jsonSchema(name: name, schema: wireSchema(), strict: true)
        case .jsonObject: .jsonObject(schema: schema)
        }
    }
}

/// A malformed LLM setting in the environment: which, what it was, what it must be.
package struct LLMSettingError: Error, Sendable, CustomStringConvertible {
    package let name: String
    /// Nil when it is not shown (it may hold a secret).
    package let value: String?
    package let expected: String

    package init(name: String, value: String?, expected: String) {
        self.name = name
        self.value = value
        self.expected = expected
    }

    package var description: String { "\(name)\(value.map { "='\($0.prefix(40))'" } ?? "") is not valid: expected \(expected)" }
}
