import CLibPQ
import Foundation

/// Where to connect: a libpq connection string or `postgres://` URI.
///
/// Follows libpq's own conventions so nothing is new to operators: `DATABASE_URL` when set, otherwise an
/// empty string, which makes libpq read `PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`, `PGPASSWORD`, `PGSSLMODE`...
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    public var connectionString: String
    /// Seconds libpq may spend connecting before giving up.
    public var connectTimeout: Int = 10
    /// Shown as `application_name` in pg_stat_activity.
    public var applicationName: String = "messageai-jobs"
    /// Server options for every connection, e.g. `-c search_path=test_1` (libpq's `options` keyword).
    /// Applied on top of the connection string, overriding an `options` it may carry.
    public var options: String?
    /// Seconds any statement of this connection may wait for a lock (`lock_timeout`), set when it connects; nil
    /// leaves the server's setting. Without a bound, one session holding a row lock stalls a job for as long as it holds it.
    public var lockTimeout: Double? = 30
    /// Seconds any statement may run (`statement_timeout`), set when it connects; nil leaves the server's setting.
    public var statementTimeout: Double? = 300

    public init(connectionString: String) {
        self.connectionString = connectionString
    }

    /// `DATABASE_URL`, and the bounds from `DATABASE_LOCK_TIMEOUT` / `DATABASE_STATEMENT_TIMEOUT` (seconds; 0: none).
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> PostgresConfiguration {
        var configuration = PostgresConfiguration(connectionString: env["DATABASE_URL"] ?? "")
        if let text = env["DATABASE_LOCK_TIMEOUT"], let seconds = Double(text), seconds >= 0 {
            configuration.lockTimeout = seconds == 0 ? nil : seconds
        }
        if let text = env["DATABASE_STATEMENT_TIMEOUT"], let seconds = Double(text), seconds >= 0 {
            configuration.statementTimeout = seconds == 0 ? nil : seconds
        }
        return configuration
    }

    /// "1500ms": a duration as Postgres reads it; 0 would mean no bound, so the smallest bound is 1 ms.
    public static func milliseconds(_ seconds: Double) -> String { "\(max(1, Int((seconds * 1000).rounded())))ms" }

    /// The password libpq would use from the connection string, so it can be scrubbed from any message.
    var password: String? {
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
            result = result.replacingOccurrences(of: password, with: "***")
            if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != password {
                result = result.replacingOccurrences(of: encoded, with: "***")
            }
        }
        // URIs echoed back in full: hide the userinfo's password part whatever it is.
        return result.replacingOccurrences(
            of: #"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@"#, with: "$1***@", options: .regularExpression)
    }

    /// The connection string with the password hidden, for logs.
    public var description: String { redact(connectionString.isEmpty ? "(PG* environment variables)" : connectionString) }
}
