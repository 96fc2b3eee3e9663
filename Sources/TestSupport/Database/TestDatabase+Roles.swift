package import Foundation
package import Postgres

extension TestDatabase {
    /// Runs `body` as PostgREST runs a request: `SET ROLE authenticated` with the user's id in
    /// `request.jwt.claim.sub`, or `SET ROLE anon` when `user` is nil. Committed when `body` returns.
    package func asRole<T: Sendable>(_ user: UUID?, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await pool.withConnection { connection in
            try await connection.transaction { c in
                if let user {
                    try await c.query("SET LOCAL ROLE authenticated")
                    try await c.query("SELECT set_config('request.jwt.claim.sub', $1, true)", [user.uuidString.lowercased()])
                } else {
                    try await c.query("SET LOCAL ROLE anon")
                }
                return try await body(c)
            }
        }
    }
}
