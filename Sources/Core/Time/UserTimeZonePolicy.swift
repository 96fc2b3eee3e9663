package import Foundation
import Logging
import Synchronization

/// The one rule for a user's time zone, used by every job: her `user_settings.time_zone` row, else the
/// deployment's default (`--timezone` / `MESSAGEAI_TIMEZONE`), else UTC. The app sets a user's zone by upserting
/// her own `user_settings` row (row level security lets her write only that row). The commands build the policy
/// once and hand it to the services as a value.
package struct UserTimeZonePolicy: Sendable, Hashable {
    /// The environment variable holding the default zone (an IANA name such as America/New_York).
    package static let environmentVariable = "MESSAGEAI_TIMEZONE"

    /// The zone of a user with no `user_settings` row.
    package let fallback: TimeZone

    package init(fallback: TimeZone) {
        self.fallback = fallback
    }

    /// UTC for users without a setting.
    package static let utc = UserTimeZonePolicy(fallback: TimeZone(identifier: "UTC")!)

    /// The deployment's default: `option` (`--timezone`), else `MESSAGEAI_TIMEZONE` in `environment`, else UTC.
    /// Throws on an unknown name, naming where it came from, so a typo stops a job before it writes anything.
    package static func deployment(option: String?, environment: [String: String]) throws(UnknownTimeZone) -> UserTimeZonePolicy {
        if let option { return UserTimeZonePolicy(fallback: try zone(named: option, source: "--timezone")) }
        guard let name = environment[environmentVariable], !name.isEmpty else { return .utc }
        return UserTimeZonePolicy(fallback: try zone(named: name, source: environmentVariable))
    }

    /// The zone to use for `user` given her setting (nil: no row); `valid` is false when her setting was refused.
    ///
    /// A setting that is not a valid zone falls back to the default zone, with one warning per process and user,
    /// rather than failing: such a row predates the database's check (or was written around it), and failing would
    /// stop every conversation she is in, every night, while the default only misplaces her local day by a few hours.
    package func zone(user: String, setting: String?) -> (zone: TimeZone, valid: Bool) {
        guard let setting else { return (fallback, true) }
        do {
            return (try Self.zone(named: setting, source: "user_settings.time_zone"), true)
        } catch {
            if Self.warned.withLock({ $0.insert(user).inserted }) {
                Self.logger.warning(
                    "a stored time zone is not valid; the default zone is used for this user",
                    metadata: ["user": "\(user)", "time_zone": "\(setting.prefix(80))", "default": "\(fallback.identifier)"])
            }
            return (fallback, false)
        }
    }

    private static let logger = Logger(label: "messageai.timezones")
    private static let warned = Mutex<Set<String>>([])

    /// A zone by IANA name, or an error naming where the name came from.
    package static func zone(named name: String, source: String) throws(UnknownTimeZone) -> TimeZone {
        guard isValidName(name), let zone = TimeZone(identifier: name) else { throw UnknownTimeZone(name: name, source: source) }
        return zone
    }

    /// The one definition of a valid zone name, shared with the database: `user_settings`' trigger
    /// (`messageai_valid_time_zone`) accepts a name when it is in `pg_timezone_names` and passes this same test, and
    /// the jobs when Foundation loads it and it passes this test. Left out: the tz database's `posix/` and `right/`
    /// copies (`right/` counts leap seconds), `localtime` and `posixrules` (whatever the server's machine is set to),
    /// `Factory`, and anything that is not a plain relative name.
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, !excludedNames.contains(name),
              !excludedPrefixes.contains(where: { name.hasPrefix($0) }), !name.hasPrefix("/"), !name.contains("..")
        else { return false }
        return name.unicodeScalars.allSatisfy { allowedScalars.contains($0) }
    }

    /// Names that are not zones of a place (the database's `messageai_valid_time_zone` lists the same).
    static let excludedNames: Set<String> = ["localtime", "posixrules", "Factory"]
    /// Directories of the tz database that repeat the zones with other rules.
    static let excludedPrefixes = ["posix/", "right/"]
    private static let allowedScalars = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-")
}

/// A time zone name that is not an IANA zone.
package struct UnknownTimeZone: Error, Sendable, Hashable, CustomStringConvertible {
    package let name: String
    /// Where the name came from (an option, a variable, a column).
    package let source: String

    package init(name: String, source: String) {
        self.name = name
        self.source = source
    }

    package var description: String {
        "\(source) '\(name)' is not a known time zone name (use an IANA name such as America/New_York or UTC)"
    }
}
