/// Splits a long conversation into windows that fit the model's context.
///
/// Token counts are estimated (4 bytes of UTF-8 per token plus a per-message overhead), which is close enough
/// for English chat to stay under a budget set with room to spare. Consecutive windows overlap by a few
/// messages so an answer and its question are seen together; results are merged without duplicates.
package struct Windowing: Sendable, Hashable {
    package var maxInputTokens: Int
    package var overlapMessages: Int

    package init(maxInputTokens: Int = 6000, overlapMessages: Int = 4) {
        self.maxInputTokens = max(200, maxInputTokens)
        self.overlapMessages = max(0, overlapMessages)
    }

    package static func estimatedTokens(_ message: InputMessage) -> Int { 24 + message.text.utf8.count / 4 }

    /// Index ranges into `messages`; a single message larger than the budget gets a window of its own.
    package func windows(_ messages: [InputMessage]) -> [Range<Int>] {
        guard !messages.isEmpty else { return [0..<0] }
        var windows: [Range<Int>] = []
        var start = 0
        while start < messages.count {
            var end = start
            var tokens = 0
            while end < messages.count {
                let cost = Self.estimatedTokens(messages[end])
                if end > start, tokens + cost > maxInputTokens { break }
                tokens += cost
                end += 1
            }
            windows.append(start..<end)
            if end >= messages.count { break }
            // Step back for overlap, but always move forward.
            start = max(start + 1, end - overlapMessages)
        }
        return windows
    }
}
