import Crypto
import Foundation

/// What a run records for each prompt it used: two runs of `calendar_events@1` with different text differ here.
package struct PromptFingerprint: Sendable, Hashable, Codable {
    package let id: String
    package let version: Int
    /// Hex SHA-256 of everything the prompt puts into a request besides the conversation: model, parameters, the
    /// system and user templates, the output schema as sent, the few-shot examples and the combined rule.
    package let sha256: String

    package init(id: String, version: Int, sha256: String) {
        self.id = id
        self.version = version
        self.sha256 = sha256
    }

    /// `calendar_events@1 3f2a9c0d1e2b` for logs and report headers.
    package var short: String { "\(id)@\(version) \(sha256.prefix(12))" }
}

extension Prompt {
    /// The prompt's content hash. Each part is length-prefixed, so moving text between parts changes the hash.
    package var fingerprint: PromptFingerprint {
        var hasher = SHA256()
        func add(_ text: String) {
            let bytes = Array(text.utf8)
            hasher.update(data: Array("\(bytes.count):".utf8))
            hasher.update(data: bytes)
        }
        add(id)
        add(String(version))
        add(model)
        add(parameters.temperature.map { "\($0)" } ?? "-")
        add(parameters.seed.map(String.init) ?? "-")
        add(parameters.maxTokens.map(String.init) ?? "-")
        add(system)
        add(user)
        add(outputName ?? "-")
        add(wireOutputSchema?.serialized(sortedKeys: true) ?? "-")
        add(String(examples.count))
        for (example, answer) in zip(examples, exampleAnswers) {
            add(example.input)
            add(answer)
        }
        // Added only when present, so the hashes of prompts without one are those recorded before the field existed.
        if let combinedRule {
            add("combined_rule")
            add(combinedRule)
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return PromptFingerprint(id: id, version: version, sha256: digest)
    }
}
