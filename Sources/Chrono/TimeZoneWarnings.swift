import Foundation
import Logging
import Synchronization

/// Warns once per process and user when a stored `user_settings.time_zone` is not a valid zone and the default zone
/// is used instead (the row predates the database's check, or was written around it).
public enum TimeZoneWarnings {
    private static let logger = Logger(label: "messageai.timezones")
    private static let warned = Mutex<Set<String>>([])

    /// The zone to use for `user` (`valid`: her setting was used), logging a warning the first time her setting is refused.
    public static func zone(user: String, setting: String?, policy: UserTimeZonePolicy) -> (zone: TimeZone, valid: Bool) {
        let (zone, rejected) = policy.zoneOrFallback(setting: setting)
        if let rejected, warned.withLock({ $0.insert(user).inserted }) {
            logger.warning(
                "a stored time zone is not valid; the default zone is used for this user",
                metadata: ["user": "\(user)", "time_zone": "\(rejected.name.prefix(80))", "default": "\(policy.fallback.identifier)"])
        }
        return (zone, rejected == nil)
    }
}
