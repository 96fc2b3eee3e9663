/// Failures of an extraction; descriptions say what and where, never a key.
package enum ExtractionError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The model's answer failed the schema even after one re-ask. Paths are JSON paths into the answer.
    case invalidOutput(feature: ExtractionFeature, errors: [String])
    /// The model hit its token limit; the answer is cut off, so no re-ask.
    case truncated(feature: ExtractionFeature, maxTokens: Int?)
    /// The model declined to answer.
    case refused(feature: ExtractionFeature, reason: String)
    /// The prompt or its schema is missing or unusable.
    case promptProblem(String)
    /// Bad input from the caller (unknown conversation, malformed id...).
    case invalidInput(String)

    package var description: String {
        switch self {
        case .invalidOutput(let feature, let errors):
            let shown = errors.prefix(5).joined(separator: "; ")
            return "\(feature.rawValue): the model's answer does not match the schema after one re-ask: \(shown)"
                + (errors.count > 5 ? " (+\(errors.count - 5) more)" : "")
        case .truncated(let feature, let maxTokens):
            return "\(feature.rawValue): the model's answer was cut off at the token limit"
                + (maxTokens.map { " (max_tokens \($0))" } ?? "") + "; raise parameters.max_tokens in the prompt or shorten the window"
        case .refused(let feature, let reason):
            return "\(feature.rawValue): the model refused: \(reason.prefix(300))"
        case .promptProblem(let text), .invalidInput(let text):
            return text
        }
    }
}
