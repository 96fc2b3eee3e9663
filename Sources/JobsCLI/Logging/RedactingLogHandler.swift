import Core
import Foundation
package import Logging
import Postgres
import Synchronization
package import JobsKit

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

extension LogSecrets {
    /// A log value with every secret replaced, at any depth.
    func redact(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(redact(text))
        case .stringConvertible(let value): .string(redact(value.description))
        case .array(let values): .array(values.map(redact))
        case .dictionary(let entries): .dictionary(entries.mapValues(redact))
        }
    }
}
