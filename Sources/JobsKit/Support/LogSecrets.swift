import Core
import Postgres
import Synchronization

/// The secrets no log line may carry (the OpenAI key, the database password), whatever the format: every handler
/// `CLILogging` makes goes through `RedactingLogHandler`. Secrets are added as they become known (the environment at
/// bootstrap, `--database-url` when a command reads it); loggers made before that are covered too.
package final class LogSecrets: Sendable {
    package static let shared = LogSecrets()

    /// What replaces a secret.
    package static let replacement = "[redacted]"

    private let secrets = Mutex<[String]>([])

    package init() {}

    /// Adds `secret`, trimmed as the settings read it (a key file's final newline is not part of the key); values
    /// shorter than 4 characters are ignored (replacing them would mangle ordinary words).
    package func add(_ secret: String?) {
        guard let secret = secret?.trimmingCharacters(in: .whitespacesAndNewlines), secret.count >= 4 else { return }
        secrets.withLock { if !$0.contains(secret) { $0.append(secret) } }
    }

    /// `text` with every known secret (verbatim or disguised), and the password part of any Postgres URI, replaced.
    package func redact(_ text: String) -> String {
        var result = text
        // Also disguised with invisible format characters (U+200B...): `SecretText`.
        for secret in secrets.withLock({ $0 }) {
            result = SecretText.replacing(secret, in: result, with: Self.replacement)
        }
        return result.contains("://") ? PostgresConfiguration.hidingURIPasswords(result) : result
    }
}
