package import Logging

/// How the process logs: the level and format from `LOG_LEVEL` and `LOG_FORMAT`, read once and checked before any
/// work starts, so a typo (`LOG_LEVEL=verbose`) stops the command instead of being ignored.
package struct LogSettings: Sendable, Equatable {
    package enum Format: String, Sendable, CaseIterable {
        /// swift-log's own readable line (`StreamLogHandler`).
        case text
        /// One JSON object per line, for log collectors (`JSONLogHandler`).
        case json
    }

    /// A variable whose value is not one of the valid ones.
    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package let variable: String
        package let value: String
        package let valid: [String]

        package var description: String {
            "\(variable)=\(value) is not valid: use one of \(valid.joined(separator: ", ")) (any case)"
        }
    }

    package static let defaultLevel = Logger.Level.notice

    package var level: Logger.Level
    package var format: Format

    package init(level: Logger.Level = Self.defaultLevel, format: Format = .text) {
        self.level = level
        self.format = format
    }

    /// The settings from `environment`; `verbose` (`-v`) means `debug` whatever `LOG_LEVEL` says. An empty variable
    /// counts as unset.
    package static func from(_ environment: [String: String], verbose: Bool = false) throws(Invalid) -> LogSettings {
        var settings = LogSettings()
        if let raw = environment["LOG_LEVEL"], !raw.isEmpty {
            guard let level = Logger.Level(rawValue: raw.lowercased()) else {
                throw Invalid(variable: "LOG_LEVEL", value: raw, valid: Logger.Level.allCases.map(\.rawValue))
            }
            settings.level = level
        }
        if verbose { settings.level = .debug }
        if let raw = environment["LOG_FORMAT"], !raw.isEmpty {
            guard let format = Format(rawValue: raw.lowercased()) else {
                throw Invalid(variable: "LOG_FORMAT", value: raw, valid: Format.allCases.map(\.rawValue))
            }
            settings.format = format
        }
        return settings
    }
}
