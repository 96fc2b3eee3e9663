/// Tokens as the jobs count and report them, summed over requests. `Usage` is the wire block of one response, with
/// the server's optional fields; this is the running total every job, cost estimate and report shares.
public struct TokenUsage: Sendable, Hashable, Codable {
    public var promptTokens = 0
    public var completionTokens = 0
    public var cachedPromptTokens = 0

    public init(promptTokens: Int = 0, completionTokens: Int = 0, cachedPromptTokens: Int = 0) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.cachedPromptTokens = cachedPromptTokens
    }

    /// The counts of a Chat Completions `usage` block (no cached count reads as zero): the one conversion from the
    /// client's type, instead of a copy at every call site.
    public init(_ usage: Usage) {
        self.init(promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
                  cachedPromptTokens: usage.cachedPromptTokens ?? 0)
    }

    public var totalTokens: Int { promptTokens + completionTokens }

    public static func + (a: TokenUsage, b: TokenUsage) -> TokenUsage {
        TokenUsage(promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens,
                   cachedPromptTokens: a.cachedPromptTokens + b.cachedPromptTokens)
    }

    public static func += (a: inout TokenUsage, b: TokenUsage) { a = a + b }
}
