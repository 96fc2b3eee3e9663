import AgentRuntime

extension TokenUsage {
    /// The counts of a Chat Completions `usage` block, summed by the jobs (no cached count reads as zero); the one
    /// conversion from the client's type, instead of a copy at every call site.
    public init(_ usage: Usage) {
        self.init(promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
                  cachedPromptTokens: usage.cachedPromptTokens ?? 0)
    }
}
