/// A failure talking to Postgres, carrying what the server said so callers can branch on SQLSTATE.
///
/// Descriptions never contain the password: connection errors name host, port and database only.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Could not connect, or the connection broke.
        case connection
        /// The server rejected a statement (see `sqlState`).
        case server
        /// A value could not be decoded into the requested Swift type.
        case decoding
        /// The caller misused the API (wrong column name, closed connection, bad bind).
        case usage
    }

    public let kind: Kind
    public let message: String
    public var sqlState: SQLState?
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var table: String?
    public var column: String?
    /// The statement that failed, abbreviated (never its bound values).
    public var statement: String?

    public init(kind: Kind, message: String, sqlState: SQLState? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String {
        var parts = [message]
        if let sqlState { parts.append("SQLSTATE \(sqlState)") }
        if let constraint { parts.append("constraint \(constraint)") }
        if let detail { parts.append("detail: \(detail)") }
        if let hint { parts.append("hint: \(hint)") }
        if let statement { parts.append("in: \(statement)") }
        return parts.joined(separator: "; ")
    }

    /// A unique or primary key constraint was violated.
    public var isUniqueViolation: Bool { sqlState == .uniqueViolation }
    /// A serialization failure or deadlock: the transaction may be retried as a whole.
    public var isRetryableTransactionFailure: Bool { sqlState == .serializationFailure || sqlState == .deadlockDetected }
    /// Class 08 (connection exception), a server shutdown, or a broken socket: the connection is unusable.
    public var isConnectionFailure: Bool {
        kind == .connection || sqlState?.errorClass == SQLState.connectionExceptionClass
            || [.adminShutdown, .crashShutdown, .cannotConnectNow].contains(sqlState)
    }
}
