package import Extractors
package import Foundation

/// One thing a run failed at: a conversation (and the feature, when the error names one), or a user. Runs keep their
/// first `RunFailure.recordedLimit` in `job_runs.details.failures` (the count of all is `conversations_failed`), which
/// `messageai-jobs runs show` lists.
package struct RunFailure: Sendable, Codable, Equatable {
    package var conversationID: UUID?
    package var userID: UUID?
    package var feature: String?
    package var error: String
    /// What the model said in the answers that failed (redacted, bounded); nil when none was kept.
    package var answers: [ModelAnswer]?

    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id"
        case userID = "user_id"
        case feature, error, answers
    }

    /// Ids in lower case, as every other id in `job_runs` and the CLI's output.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(conversationID?.uuidString.lowercased(), forKey: .conversationID)
        try container.encodeIfPresent(userID?.uuidString.lowercased(), forKey: .userID)
        try container.encodeIfPresent(feature, forKey: .feature)
        try container.encode(error, forKey: .error)
        try container.encodeIfPresent(answers, forKey: .answers)
    }

    package init(conversationID: UUID? = nil, userID: UUID? = nil, feature: String? = nil, error: String, answers: [ModelAnswer]? = nil) {
        self.conversationID = conversationID
        self.userID = userID
        self.feature = feature
        self.error = error
        self.answers = answers?.isEmpty == true ? nil : answers
    }

    /// A failure of `error`, with the feature when the error is an extraction error that names one.
    package init(conversationID: UUID? = nil, userID: UUID? = nil, error: any Error) {
        self.init(conversationID: conversationID, userID: userID, feature: Self.feature(of: error), error: "\(error)")
    }

    /// Failures a run's row keeps; a run lists at most this many.
    package static let recordedLimit = 50

    /// Errors in a run's row are cut to this many characters each.
    static let maxErrorLength = 1000

    static func feature(of error: any Error) -> String? {
        switch error as? ExtractionError {
        case .invalidOutput(let feature, _), .truncated(let feature, _), .refused(let feature, _): feature.rawValue
        default: nil
        }
    }
}

extension ModelAnswer {
    /// The answer with every known secret (the API key, the database password) replaced, by the one scrubber
    /// (`LogSecrets`, `SecretText`): the client already scrubbed the key from the body; this covers the rest.
    package var redacted: ModelAnswer {
        var copy = self
        copy.text = LogSecrets.shared.redact(text)
        copy.problem = LogSecrets.shared.redact(problem)
        return copy
    }
}
