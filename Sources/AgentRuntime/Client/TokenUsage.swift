/// Tokens as the jobs count and report them, summed over requests. `Usage` is the wire block of one response, with
/// the server's optional fields; this is the running total every job, cost estimate and report shares.
package struct TokenUsage: Sendable, Hashable, Codable {
    package var promptTokens = 0
    package var completionTokens = 0
    package var cachedPromptTokens = 0

    package init(promptTokens: Int = 0, completionTokens: Int = 0, cachedPromptTokens: Int = 0) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.cachedPromptTokens = cachedPromptTokens
    }

    /// The counts of a Chat Completions `usage` block (no cached count reads as zero): the one conversion from the
    /// client's type, instead of a copy at every call site.
    package init(_ usage: Usage) {
        self.init(promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
                  cachedPromptTokens: usage.cachedPromptTokens ?? 0)
    }

    package var totalTokens: Int { promptTokens + completionTokens }

    package static func + (a: TokenUsage, b: TokenUsage) -> TokenUsage {
        TokenUsage(promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens,
                   cachedPromptTokens: a.cachedPromptTokens + b.cachedPromptTokens)
    }

    package static func += (a: inout TokenUsage, b: TokenUsage) { a = a + b }
}
