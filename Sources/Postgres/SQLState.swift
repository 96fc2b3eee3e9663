/// A five-character SQLSTATE code from the server (https://www.postgresql.org/docs/current/errcodes-appendix.html).
///
/// The codes this project branches on are named here, in one place, so that code and tests say what they mean
/// (`.lockNotAvailable`) instead of repeating "55P03". Build other codes with `SQLState("…")`.
package struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ code: String) { self.rawValue = code }

    package var description: String { rawValue }

    /// The two-character class ("08" for connection exceptions, "40" for transaction rollbacks).
    package var errorClass: String { String(rawValue.prefix(2)) }

    // Class 08: connection exception.
    static let connectionExceptionClass = "08"
    // Class 22: data exception.
    /// A byte sequence is not valid in the database encoding (e.g. a NUL in text).
    package static let characterNotInRepertoire = SQLState("22021")
    // Class 23: integrity constraint violation.
    package static let foreignKeyViolation = SQLState("23503")
    package static let uniqueViolation = SQLState("23505")
    package static let checkViolation = SQLState("23514")
    // Class 40: transaction rollback; the transaction may be retried as a whole.
    package static let serializationFailure = SQLState("40001")
    package static let deadlockDetected = SQLState("40P01")
    // Class 42: syntax error or access rule violation.
    /// Row-level security or a missing GRANT refused the statement.
    package static let insufficientPrivilege = SQLState("42501")
    static let undefinedTable = SQLState("42P01")
    // Class 54: program limit exceeded.
    /// The server cannot hold a value or statement (e.g. `chr(0)`: text may not contain NUL).
    package static let programLimitExceeded = SQLState("54000")
    // Class 55: object not in prerequisite state.
    /// `lock_timeout` ran out, or `NOWAIT` met a held lock.
    package static let lockNotAvailable = SQLState("55P03")
    // Class 57: operator intervention.
    /// `statement_timeout` ran out, or the statement was cancelled.
    package static let queryCanceled = SQLState("57014")
    package static let adminShutdown = SQLState("57P01")
    static let crashShutdown = SQLState("57P02")
    static let cannotConnectNow = SQLState("57P03")
    // Class XX: internal error.
    /// Among others, "tuple concurrently updated": two sessions altering one catalog row (a role) at once.
    static let internalError = SQLState("XX000")
}
