import Core
import Foundation
package import Logging
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

    func redact(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(redact(text))
        case .stringConvertible(let value): .string(redact(value.description))
        case .array(let values): .array(values.map(redact))
        case .dictionary(let entries): .dictionary(entries.mapValues(redact))
        }
    }
}

/// Passes every record to `inner` with the secrets in its message and metadata replaced.
package struct RedactingLogHandler<Inner: LogHandler>: LogHandler {
    package var inner: Inner
    package let secrets: LogSecrets

    package init(_ inner: Inner, secrets: LogSecrets = .shared) {
        self.inner = inner
        self.secrets = secrets
    }

    package var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    package var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    package func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: secrets.redact(event.message.description))
        event.metadata = event.metadata?.mapValues(secrets.redact)
        // Metadata set on the logger earlier may hold a secret added since: the inner handler gets a scrubbed copy.
        var inner = inner
        inner.metadata = inner.metadata.mapValues(secrets.redact)
        inner.log(event: event)
    }
}
