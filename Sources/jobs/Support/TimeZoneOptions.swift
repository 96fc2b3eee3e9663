import ArgumentParser
import Chrono
import Foundation

/// The default zone for users without a `user_settings` row (``UserTimeZonePolicy``).
struct TimeZoneOptions: ParsableArguments {
    @Option(name: .customLong("timezone"),
            help: "Time zone (IANA name, e.g. America/New_York) of users without a user_settings row (default: $MESSAGEAI_TIMEZONE, else UTC).")
    var timeZone: String?

    func validate() throws {
        _ = try resolved()
    }

    /// The name given by the option, else by the environment; nil for UTC. Throws on an unknown name.
    func resolved() throws -> String? {
        if let timeZone {
            do { _ = try UserTimeZonePolicy.zone(named: timeZone, source: "--timezone") } catch { throw ValidationError("\(error)") }
            return timeZone
        }
        guard let name = ProcessInfo.processInfo.environment[UserTimeZonePolicy.environmentVariable], !name.isEmpty else { return nil }
        do { _ = try UserTimeZonePolicy.zone(named: name, source: UserTimeZonePolicy.environmentVariable) } catch {
            throw ValidationError("\(error)")
        }
        return name
    }

    /// Makes the option the process's default zone (the jobs read ``UserTimeZonePolicy/environment``). Called first
    /// in `run()`, before any task reads the environment.
    func apply() throws {
        if let name = try resolved() { setenv(UserTimeZonePolicy.environmentVariable, name, 1) }
    }
}
