import Foundation
import Postgres

/// The one place the proactive pass reads users' time zones: `user_settings.time_zone`, else UTC (the service's
/// default, as the tools and extractors read it). An unknown identifier falls back to UTC too, so one bad setting
/// does not stop a night's pass; the fallback is reported.
public enum UserZones {
    public static let fallback = TimeZone(identifier: "UTC")!

    /// Zones of the users that exist among `users`, and the users whose setting was not a known zone.
    public static func load(_ users: [UUID], on db: PostgresConnection) async throws -> (zones: [UUID: TimeZone], invalid: [UUID]) {
        let rows = try await db.query(
            "SELECT u.id, s.time_zone FROM users u LEFT JOIN user_settings s ON s.user_id = u.id WHERE u.id = ANY($1::uuid[])",
            [users])
        var zones: [UUID: TimeZone] = [:]
        var invalid: [UUID] = []
        for row in rows {
            let id: UUID = try row.decode("id")
            let name = try row.decode("time_zone", as: String?.self)
            if let name, let zone = TimeZone(identifier: name) {
                zones[id] = zone
            } else {
                if name != nil { invalid.append(id) }
                zones[id] = fallback
            }
        }
        return (zones, invalid)
    }
}
