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

    /// The user's zone, or the default zone when her setting is not a valid zone (a row written before the database
    /// refused such names): one bad row must not fail every conversation she is in. `rejected` says why, for a warning.
    public func zoneOrFallback(setting: String?) -> (zone: TimeZone, rejected: UnknownTimeZone?) {
        do {
            return (try zone(setting: setting), nil)
        } catch let error as UnknownTimeZone {
            return (fallback, error)
        } catch {
            return (fallback, UnknownTimeZone(name: setting ?? "", source: "user_settings.time_zone"))
        }
    }

    /// A zone by IANA name, or an error naming where the name came from.
    public static func zone(named name: String, source: String) throws -> TimeZone {
        guard isValidName(name), let zone = TimeZone(identifier: name) else { throw UnknownTimeZone(name: name, source: source) }
        return zone
    }

    /// The one definition of a valid zone name, shared with the database: `user_settings`' trigger
    /// (`messageai_valid_time_zone`) accepts a name when it is in `pg_timezone_names` and passes this same test, and
    /// the jobs when Foundation loads it and it passes this test. Left out: the tz database's `posix/` and `right/`
    /// copies (`right/` counts leap seconds), `localtime` and `posixrules` (whatever the server's machine is set to),
    /// `Factory`, and anything that is not a plain relative name.
    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, !excludedNames.contains(name),
              !excludedPrefixes.contains(where: { name.hasPrefix($0) }), !name.hasPrefix("/"), !name.contains("..")
        else { return false }
        return name.unicodeScalars.allSatisfy { allowedScalars.contains($0) }
    }

    /// Names that are not zones of a place (the database's `messageai_valid_time_zone` lists the same).
    public static let excludedNames: Set<String> = ["localtime", "posixrules", "Factory"]
    /// Directories of the tz database that repeat the zones with other rules.
    public static let excludedPrefixes = ["posix/", "right/"]
    private static let allowedScalars = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-")
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
