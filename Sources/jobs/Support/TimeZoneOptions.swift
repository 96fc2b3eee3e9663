import ArgumentParser
import Core
import Foundation

/// The default zone for users without a `user_settings` row (``UserTimeZonePolicy``).
struct TimeZoneOptions: ParsableArguments {
    @Option(name: .customLong("timezone"),
            help: "Time zone (IANA name, e.g. America/New_York) of users without a user_settings row (default: $MESSAGEAI_TIMEZONE, else UTC).")
    var timeZone: String?

    func validate() throws {
        _ = try policy()
    }

    /// The option, else `MESSAGEAI_TIMEZONE`, else UTC, as the value the services take. Throws on an unknown name.
    func policy() throws -> UserTimeZonePolicy {
        do {
            return try UserTimeZonePolicy.deployment(option: timeZone, environment: ProcessEnvironment.values)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
