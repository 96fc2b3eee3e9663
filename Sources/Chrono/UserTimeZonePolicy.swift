import Foundation

/// The one rule for a user's time zone, used by every job: her `user_settings.time_zone` row, else the
/// deployment's default (`--timezone` / `MESSAGEAI_TIMEZONE`), else UTC. The app sets a user's zone by upserting
/// her own `user_settings` row (row level security lets her write only that row).
public struct UserTimeZonePolicy: Sendable, Hashable {
    /// The environment variable holding the default zone (an IANA name such as America/New_York).
    public static let environmentVariable = "MESSAGEAI_TIMEZONE"

    /// The zone of a user with no `user_settings` row.
    public let fallback: TimeZone

    public init(fallback: TimeZone) {
        self.fallback = fallback
    }

    /// UTC for users without a setting.
    public static let utc = UserTimeZonePolicy(fallback: TimeZone(identifier: "UTC")!)

    /// The default from `MESSAGEAI_TIMEZONE` (UTC when unset or empty). The CLI checks the variable at start, so
    /// an unknown name stops it there; here an unknown name falls back to UTC.
    public static var environment: UserTimeZonePolicy {
        // getenv, not `ProcessInfo.environment`, which copies the whole environment into a dictionary on every call
        // (1% of a scan's CPU, once per conversation read).
        guard let value = getenv(environmentVariable), case let name = String(cString: value), !name.isEmpty,
              let zone = try? zone(named: name, source: environmentVariable) else { return .utc }
        return UserTimeZonePolicy(fallback: zone)
    }

    /// The user's zone from her setting (nil: no row).
    public func zone(setting: String?) throws -> TimeZone {
        guard let setting else { return fallback }
        return try Self.zone(named: setting, source: "user_settings.time_zone")
    }

    /// A zone by IANA name, or an error naming where the name came from.
    public static func zone(named name: String, source: String) throws -> TimeZone {
        guard !name.isEmpty, let zone = TimeZone(identifier: name) else { throw UnknownTimeZone(name: name, source: source) }
        return zone
    }
}

/// A time zone name that is not an IANA zone.
public struct UnknownTimeZone: Error, Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// Where the name came from (an option, a variable, a column).
    public let source: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }

    public var description: String {
        "\(source) '\(name)' is not a known time zone name (use an IANA name such as America/New_York or UTC)"
    }
}
