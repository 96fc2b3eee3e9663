import JSONKit
import Logging
import Postgres
import Synchronization

/// The secrets no log line may carry (the OpenAI key, the database password), whatever the format: every handler
/// `CLILogging` makes goes through `RedactingLogHandler`. Secrets are added as they become known (the environment at
/// bootstrap, `--database-url` when a command reads it); loggers made before that are covered too.
public final class LogSecrets: Sendable {
    public static let shared = LogSecrets()

    /// What replaces a secret.
    public static let replacement = "[redacted]"

    private let secrets = Mutex<[String]>([])

    public init() {}

    /// Adds `secret`; values shorter than 4 characters are ignored (replacing them would mangle ordinary words).
    public func add(_ secret: String?) {
        guard let secret, secret.count >= 4 else { return }
        secrets.withLock { if !$0.contains(secret) { $0.append(secret) } }
    }

    /// `text` with every known secret (verbatim or disguised), and the password part of any Postgres URI, replaced.
    public func redact(_ text: String) -> String {
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
public struct RedactingLogHandler<Inner: LogHandler>: LogHandler {
    public var inner: Inner
    public let secrets: LogSecrets

    public init(_ inner: Inner, secrets: LogSecrets = .shared) {
        self.inner = inner
        self.secrets = secrets
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: secrets.redact(event.message.description))
        event.metadata = event.metadata?.mapValues(secrets.redact)
        // Metadata set on the logger earlier may hold a secret added since: the inner handler gets a scrubbed copy.
        var inner = inner
        inner.metadata = inner.metadata.mapValues(secrets.redact)
        inner.log(event: event)
    }
}
