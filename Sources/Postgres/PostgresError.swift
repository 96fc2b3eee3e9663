/// A failure talking to Postgres, carrying what the server said so callers can branch on SQLSTATE.
///
/// Descriptions never contain the password: connection errors name host, port and database only.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Could not connect, or the connection broke.
        case connection
        /// The server rejected a statement (see `sqlState`).
        case server
        /// A value could not be decoded into the requested Swift type.
        case decoding
        /// The caller misused the API (wrong column name, closed connection, bad bind).
        case usage
    }

    package let kind: Kind
    package let message: String
    package var sqlState: SQLState?
    package var detail: String?
    package var hint: String?
    package var constraint: String?
    package var table: String?
    package var column: String?
    /// The statement that failed, abbreviated (never its bound values).
    package var statement: String?

    package init(kind: Kind, message: String, sqlState: SQLState? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    package var description: String {
        var parts = [message]
        if let sqlState { parts.append("SQLSTATE \(sqlState)") }
        if let constraint { parts.append("constraint \(constraint)") }
        if let detail { parts.append("detail: \(detail)") }
        if let hint { parts.append("hint: \(hint)") }
        if let statement { parts.append("in: \(statement)") }
        return parts.joined(separator: "; ")
    }

    /// A unique or primary key constraint was violated.
    package var isUniqueViolation: Bool { sqlState == .uniqueViolation }
    /// A serialization failure or deadlock: the transaction may be retried as a whole.
    var isRetryableTransactionFailure: Bool { sqlState == .serializationFailure || sqlState == .deadlockDetected }
    /// Class 08 (connection exception), a server shutdown, or a broken socket: the connection is unusable.
    package var isConnectionFailure: Bool {
        kind == .connection || sqlState?.errorClass == SQLState.connectionExceptionClass
            || [.adminShutdown, .crashShutdown, .cannotConnectNow].contains(sqlState)
    }
}
