package import Postgres

/// `batch status`: the batches on record, newest first.
package struct BatchStatusService: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    package func list(limit: Int = 20) async throws -> [BatchListing] {
        try await BatchStore(pool: pool).list(limit: max(1, limit))
    }
}
