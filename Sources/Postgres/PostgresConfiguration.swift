import CLibPQ
import Foundation
import Core

/// Where to connect: a libpq connection string or `postgres://` URI.
///
/// Follows libpq's own conventions so nothing is new to operators: `DATABASE_URL` when set, otherwise an
/// empty string, which makes libpq read `PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`, `PGPASSWORD`, `PGSSLMODE`...
package struct PostgresConfiguration: Sendable, CustomStringConvertible {
    package var connectionString: String
    /// Seconds libpq may spend connecting before giving up.
    package var connectTimeout: Int = 10
    /// Shown as `application_name` in pg_stat_activity.
    package var applicationName: String = "messageai-jobs"
    /// Server options for every connection, e.g. `-c search_path=test_1` (libpq's `options` keyword).
    /// Applied on top of the connection string, overriding an `options` it may carry.
    package var options: String?
    /// Seconds any statement of this connection may wait for a lock (`lock_timeout`), set when it connects; nil
    /// leaves the server's setting. Without a bound, one session holding a row lock stalls a job for as long as it holds it.
    package var lockTimeout: Double? = 30
    /// Seconds any statement may run (`statement_timeout`), set when it connects; nil leaves the server's setting.
    package var statementTimeout: Double? = 300

    package init(connectionString: String) {
        self.connectionString = connectionString
    }

    /// `DATABASE_URL`, and the bounds from `DATABASE_LOCK_TIMEOUT` / `DATABASE_STATEMENT_TIMEOUT` (seconds; 0: none;
    /// unset or empty: the defaults). A value that is not such a number is an error naming the variable, not ignored.
    package static func fromEnvironment(_ env: [String: String]) throws -> PostgresConfiguration {
        var configuration = PostgresConfiguration(connectionString: env["DATABASE_URL"] ?? "")
        if let seconds = try seconds(env, "DATABASE_LOCK_TIMEOUT") { configuration.lockTimeout = seconds == 0 ? nil : seconds }
        if let seconds = try seconds(env, "DATABASE_STATEMENT_TIMEOUT") { configuration.statementTimeout = seconds == 0 ? nil : seconds }
        return configuration
    }

    /// The largest bound Postgres takes for these settings (INT_MAX milliseconds), in seconds.
    package static let maxTimeoutSeconds = Double(Int32.max / 1000)

    private static func seconds(_ env: [String: String], _ name: String) throws -> Double? {
        guard let raw = env[name] else { return nil }
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= maxTimeoutSeconds else {
            throw PostgresError(
                kind: .usage,
                message: "\(name)='\(raw.prefix(40))' is not a number of seconds between 0 (no bound) and \(Int(maxTimeoutSeconds)), e.g. \(name)=30")
        }
        return seconds
    }

    /// Whether libpq can read the connection string (an empty one reads the PG* variables).
    package var isParsable: Bool {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            if let error { PQfreemem(error) }
            return false
        }
        PQconninfoFree(options)
        return true
    }

    /// The password libpq would use from the connection string, so it can be scrubbed from any message or log line.
    package var password: String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var cursor = options
        while let keyword = cursor.pointee.keyword {
            if String(cString: keyword) == "password", let value = cursor.pointee.val {
                let password = String(cString: value)
                return password.isEmpty ? nil : password
            }
            cursor += 1
        }
        return nil
    }

    /// Replaces the password (and its percent-encoded form) in text that may have echoed the connection string.
    func redact(_ text: String) -> String {
        var result = text
        if let password {
            // Verbatim or disguised with invisible format characters (`SecretText`).
            result = SecretText.replacing(password, in: result, with: "***")
            if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != password {
                result = SecretText.replacing(encoded, in: result, with: "***")
            }
        }
        return Self.hidingURIPasswords(result)
    }

    /// URIs echoed back in full: the userinfo's password part hidden, whatever it is.
    package static func hidingURIPasswords(_ text: String) -> String {
        text.replacingOccurrences(of: #"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@"#, with: "$1***@", options: .regularExpression)
    }

    /// The connection string with the password hidden, for logs.
    package var description: String { redact(connectionString.isEmpty ? "(PG* environment variables)" : connectionString) }
}
