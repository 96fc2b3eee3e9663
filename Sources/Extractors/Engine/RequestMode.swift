import Foundation

/// How the extractors ask the model: one request per conversation window for all the features (`combined`, the
/// default since a real-model eval scored it level with per-feature requests at about a third of the tokens; see
/// docs/architecture.md, "Request mode"), or one request per feature and window (`perFeature`, five requests where combined sends one).
package enum RequestMode: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case combined
    case perFeature = "per-feature"

    /// What scan, extract, the worker, batch mode and eval use when neither a flag nor the environment chooses.
    package static let productDefault = RequestMode.combined

    /// The environment setting that chooses the mode when no flag does.
    package static let setting = "MESSAGEAI_REQUEST_MODE"

    package var description: String { rawValue }

    /// The mode a flag pair and the environment choose: a flag wins, then `MESSAGEAI_REQUEST_MODE`, then the default.
    /// A value that names no mode is an error naming the variable, never a silent fallback.
    package static func resolve(combined: Bool = false, perFeature: Bool = false,
                               environment: [String: String]) throws -> RequestMode {
        if combined, perFeature { throw RequestModeError("--combined and --per-feature: pick one") }
        if combined { return .combined }
        if perFeature { return .perFeature }
        guard let raw = environment[setting]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return productDefault }
        guard let mode = RequestMode(rawValue: raw.lowercased()) else {
            throw RequestModeError(
                "\(setting)='\(raw.prefix(40))' is not a request mode: use "
                    + allCases.map(\.rawValue).joined(separator: " or "))
        }
        return mode
    }
}

/// A request mode that could not be chosen (two flags, or a bad `MESSAGEAI_REQUEST_MODE`).
package struct RequestModeError: Error, Sendable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
