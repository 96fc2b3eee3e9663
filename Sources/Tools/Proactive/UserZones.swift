package import Core
package import Foundation
package import Postgres

/// Users' time zones for a batch in one query, by the one rule every job uses (`UserTimeZonePolicy`): the user's
/// `user_settings.time_zone`, else the deployment's default zone, else UTC. An unknown setting falls back to the
/// default too, so one bad row does not stop a night's pass; those users are reported.
package enum UserZones {
    /// UTC: the centre of the read windows, which are a day wider than any zone's.
    package static let utc = TimeZone(identifier: "UTC")!

    /// Zones of the users that exist among `users`, and the users whose setting was not a known zone.
    package static func load(
        _ users: [UUID], policy: UserTimeZonePolicy, on db: PostgresConnection
    ) async throws -> (zones: [UUID: TimeZone], invalid: [UUID]) {
        let rows = try await db.query(
            "SELECT u.id, s.time_zone FROM users u LEFT JOIN user_settings s ON s.user_id = u.id WHERE u.id = ANY($1::uuid[])",
            [users])
        var zones: [UUID: TimeZone] = [:]
        var invalid: [UUID] = []
        for row in rows {
            let id: UUID = try row.decode("id")
            let name = try row.decode("time_zone", as: String?.self)
            let (zone, valid) = policy.zone(user: id.uuidString.lowercased(), setting: name)
            zones[id] = zone
            if !valid { invalid.append(id) }
        }
        return (zones, invalid)
    }
}
