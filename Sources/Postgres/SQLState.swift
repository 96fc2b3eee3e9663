/// A five-character SQLSTATE code from the server (https://www.postgresql.org/docs/current/errcodes-appendix.html).
///
/// The codes this project branches on are named here, in one place, so that code and tests say what they mean
/// (`.lockNotAvailable`) instead of repeating "55P03". Build other codes with `SQLState("…")`.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ code: String) { self.rawValue = code }

    public var description: String { rawValue }

    /// The two-character class ("08" for connection exceptions, "40" for transaction rollbacks).
    public var errorClass: String { String(rawValue.prefix(2)) }

    // Class 08: connection exception.
    public static let connectionExceptionClass = "08"
    // Class 22: data exception.
    /// A byte sequence is not valid in the database encoding (e.g. a NUL in text).
    public static let characterNotInRepertoire = SQLState("22021")
    // Class 23: integrity constraint violation.
    public static let uniqueViolation = SQLState("23505")
    public static let checkViolation = SQLState("23514")
    // Class 40: transaction rollback; the transaction may be retried as a whole.
    public static let serializationFailure = SQLState("40001")
    public static let deadlockDetected = SQLState("40P01")
    // Class 42: syntax error or access rule violation.
    /// Row-level security or a missing GRANT refused the statement.
    public static let insufficientPrivilege = SQLState("42501")
    public static let undefinedTable = SQLState("42P01")
    // Class 54: program limit exceeded.
    /// The server cannot hold a value or statement (e.g. `chr(0)`: text may not contain NUL).
    public static let programLimitExceeded = SQLState("54000")
    // Class 55: object not in prerequisite state.
    /// `lock_timeout` ran out, or `NOWAIT` met a held lock.
    public static let lockNotAvailable = SQLState("55P03")
    // Class 57: operator intervention.
    /// `statement_timeout` ran out, or the statement was cancelled.
    public static let queryCanceled = SQLState("57014")
    public static let adminShutdown = SQLState("57P01")
    public static let crashShutdown = SQLState("57P02")
    public static let cannotConnectNow = SQLState("57P03")
}
