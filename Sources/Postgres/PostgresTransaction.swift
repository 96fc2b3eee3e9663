/// Transaction isolation levels as Postgres names them.
package enum PostgresIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PostgresConnection {
    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws, so a failure never leaves
    /// half of its writes behind. On a serialization failure or deadlock the whole body runs again, at most
    /// `retries` more times; bodies must therefore be safe to repeat (they only talk to this connection).
    @discardableResult
    package func transaction<T: Sendable>(
        isolation: PostgresIsolation = .readCommitted,
        retries: Int = 0,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            try await query("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
            do {
                let value = try await body(self)
                try await query("COMMIT")
                return value
            } catch {
                // A broken connection has no transaction left to roll back.
                if !((error as? PostgresError)?.isConnectionFailure ?? false) {
                    _ = try? await query("ROLLBACK")
                }
                if let pgError = error as? PostgresError, pgError.isRetryableTransactionFailure, attempt < retries {
                    attempt += 1
                    logger.debug("retrying transaction", metadata: ["sqlstate": "\(pgError.sqlState?.rawValue ?? "")", "attempt": "\(attempt)"])
                    continue
                }
                throw error
            }
        }
    }
}
