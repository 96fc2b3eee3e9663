extension Usage {
    /// More tokens than any real request takes or writes (the largest context windows hold about 2 million): a
    /// count above it is a server's mistake or a lie, and summing it could overflow.
    package static let plausibleLimit = 10_000_000

    /// The counts of a `usage` block, each a whole number from 0 to `plausibleLimit` (cached prompt tokens at most the
    /// prompt's, reasoning tokens at most the completion's). Throws, naming the field, for anything else (negative,
    /// fractional such as 12.5, 2^53+1, a string): the block is then unknown, never clamped into a made-up count.
    init(checking usage: JSONFieldReader) throws {
        func count(_ field: JSONFieldReader?) throws -> Int? {
            guard let field else { return nil }
            guard case .integer(let value) = field.value, (0...Int64(Self.plausibleLimit)).contains(value) else {
                throw JSONFieldError(path: field.path, message: "\(field.value.serialized().prefix(40)) is not a token count (a whole number from 0 to \(Self.plausibleLimit))")
            }
            return Int(value)
        }
        let prompt = try count(usage.optional("prompt_tokens")) ?? 0
        let completion = try count(usage.optional("completion_tokens")) ?? 0
        let total = try count(usage.optional("total_tokens"))
        let cached = try count(usage.optional("prompt_tokens_details")?.optional("cached_tokens"))
        let reasoning = try count(usage.optional("completion_tokens_details")?.optional("reasoning_tokens"))
        if let cached, cached > prompt {
            throw JSONFieldError(path: usage.path, message: "\(cached) cached prompt tokens of \(prompt)")
        }
        if let reasoning, reasoning > completion {
            throw JSONFieldError(path: usage.path, message: "\(reasoning) reasoning tokens of \(completion) completion tokens")
        }
        self.init(promptTokens: prompt, completionTokens: completion, totalTokens: total ?? prompt + completion,
                  cachedPromptTokens: cached, reasoningTokens: reasoning)
    }
}
