import Foundation
import Tools
import JobsKit

/// `MESSAGEAI_DEADLINE_DAYS`: how many days ahead a deadline not done becomes a finding of the proactive pass and the
/// assistant (default 7: the coming week). Read with the other settings (`Settings.deadlineDays`).
enum DeadlineDaysSetting {
    static let name = "MESSAGEAI_DEADLINE_DAYS"
    static var allowed: String {
        "whole days, \(ProactiveOptions.deadlineDaysRange.lowerBound) to \(ProactiveOptions.deadlineDaysRange.upperBound)"
    }

    /// The days a value sets; unset or empty: the default.
    static func days(_ environment: [String: String]) throws -> Int {
        let raw = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !raw.isEmpty else { return ProactiveOptions.defaultDeadlineDays }
        guard let days = Int(raw), ProactiveOptions.deadlineDaysRange.contains(days) else {
            throw JobsError.invalidInput("\(name)='\(raw.prefix(40))' is not valid: expected \(allowed)")
        }
        return days
    }
}
