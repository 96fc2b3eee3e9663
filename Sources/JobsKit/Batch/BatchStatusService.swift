import Postgres

/// `batch status`: the batches on record, newest first.
public struct BatchStatusService: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    public func list(limit: Int = 20) async throws -> [BatchListing] {
        try await BatchStore(pool: pool).list(limit: max(1, limit))
    }
}
