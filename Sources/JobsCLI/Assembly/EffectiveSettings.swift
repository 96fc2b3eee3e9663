import Foundation

/// What `messageai-jobs settings` prints: each variable's value in effect and where it came from, so an operator sees
/// what a command would run with (and every bad value at once) without running it.
package struct EffectiveSetting: Sendable, Encodable {
    /// Where a value in effect came from.
    package enum Source: String, Sendable, Encodable {
        case flag, environment, `default`
    }

    package let name: String
    /// The value in effect, masked when it may hold a secret; the default's description when unset.
    package let value: String
    package let source: Source
    /// What it takes, its default and the flag that overrides it, as in the table.
    package let values: String
    package let `default`: String
    package let flag: String?
    /// Why the value is refused (`NAME='value' is not valid: expected ...`); nil when it is valid.
    package let problem: String?

    /// Every setting as `environment` and the given flag values (keyed by variable name: the value the flag sets)
    /// make it, in table order. An empty variable counts as unset.
    package static func all(environment: [String: String], flags: [String: String] = [:]) -> [EffectiveSetting] {
        EnvironmentSettings.all.map { setting in
            let raw = environment[setting.name].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
            let source: Source
            let value: String
            if let flagged = flags[setting.name] {
                (source, value) = (.flag, setting.secret ? mask(setting.name, flagged) : flagged)
            } else if let raw {
                (source, value) = (.environment, setting.secret ? mask(setting.name, raw) : raw)
            } else {
                (source, value) = (.default, setting.defaultValue)
            }
            return EffectiveSetting(name: setting.name, value: value, source: source, values: setting.allowed,
                                    default: setting.defaultValue, flag: setting.flag,
                                    problem: raw.flatMap { setting.problem(with: $0) })
        }
    }

    /// A secret as `settings` shows it: a database URL with its password replaced by `****` (the rest tells which
    /// database), any other secret as `**** (N characters)`; an invalid URL is not shown at all, since it may be
    /// a key pasted into the wrong variable.
    static func mask(_ name: String, _ value: String) -> String {
        guard name == "DATABASE_URL" || name.hasSuffix("_BASE_URL") else { return "**** (\(value.count) characters)" }
        if let url = URLComponents(string: value), let scheme = url.scheme, ["postgres", "postgresql", "http", "https"].contains(scheme) {
            var shown = url
            if shown.password != nil { shown.password = "****" }
            shown.query = shown.query == nil ? nil : "****"
            return shown.string ?? "****"
        }
        if name == "DATABASE_URL", value.contains("=") {
            return value.split(separator: " ").map { $0.lowercased().hasPrefix("password=") ? "password=****" : String($0) }.joined(separator: " ")
        }
        return "**** (not shown: \(value.count) characters)"
    }

    /// The settings as text: one line with the value in effect and its source, then what it takes, its default
    /// and flag; a bad value's problem under it.
    package static func text(_ settings: [EffectiveSetting]) -> String {
        settings.map { setting in
            "\(setting.name) = \(setting.value)  (\(setting.source.rawValue))"
                + (setting.problem.map { "\n    NOT VALID: \($0)" } ?? "")
                + "\n    values: \(setting.values)\n    default: \(setting.default)"
                + (setting.flag.map { "\n    overridden by: \($0)" } ?? "")
        }.joined(separator: "\n")
    }
}
