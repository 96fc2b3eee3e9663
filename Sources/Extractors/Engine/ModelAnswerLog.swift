import Foundation
import Synchronization

/// A model answer that was not used as it came: one that failed its schema (re-asked, or failing the conversation),
/// was cut off at the token limit, or was a refusal. Kept, cut to `maxLength`, so an operator can read what the
/// model said (`runs show`, `quarantine show`, `requests show`) instead of only the parser's complaint.
package struct ModelAnswer: Sendable, Codable, Equatable {
    package var feature: String
    /// 1: the first answer; 2: the answer to the re-ask.
    package var attempt: Int
    /// What was wrong with it (the schema's errors, "cut off at the token limit", "a refusal").
    package var problem: String
    /// The answer's text as the server sent it (the API key already scrubbed by the client), at most `maxLength`
    /// characters.
    package var text: String

    /// Characters of an answer kept: enough to see what went wrong, bounded so a run's record stays small.
    package static let maxLength = 2000

    package init(feature: String, attempt: Int, problem: String, text: String) {
        self.feature = feature
        self.attempt = attempt
        // Without NUL characters: Postgres text and jsonb cannot hold them, and the record must be writable.
        self.problem = String(problem.withoutNULs.prefix(500))
        let text = text.withoutNULs
        self.text = text.count > Self.maxLength ? String(text.prefix(Self.maxLength)) + "… (\(text.count) characters)" : text
    }
}

/// Collects the `ModelAnswer`s of the work it is bound to (`ModelAnswerLog.$current`: one conversation's extraction);
/// `LLMAnswerProvider` adds to it. At most `limit` are kept.
package final class ModelAnswerLog: Sendable {
    @TaskLocal package static var current: ModelAnswerLog?

    private let entries = Mutex<[ModelAnswer]>([])
    package static let limit = 10

    package init() {}

    package func add(_ answer: ModelAnswer) {
        entries.withLock { if $0.count < Self.limit { $0.append(answer) } }
    }

    package var answers: [ModelAnswer] { entries.withLock { $0 } }
}
