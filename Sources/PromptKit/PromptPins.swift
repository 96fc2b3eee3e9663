import Foundation
import Core

/// Which version of each prompt production uses: `prompts/active.yaml`, one `id: version` line per prompt.
///
/// A new prompt version lands beside the old one and changes nothing until its pin moves, so a candidate can be
/// merged, evaluated (`eval --compare id=N`) and reviewed before it goes live. A run may override pins for itself
/// (`--prompt-version id=N`, `MESSAGEAI_PROMPT_VERSIONS`); an id with a single version needs no pin.
package struct PromptPins: Sendable, Hashable {
    /// The file in a prompt directory that holds the pins; it is not a prompt.
    static let fileName = "active.yaml"
    /// The environment variable that overrides pins for one process: `calendar_events=2,decisions=1`.
    package static let environmentVariable = "MESSAGEAI_PROMPT_VERSIONS"

    package var versions: [String: Int]
    /// Line of each pin in the file, for errors; empty for overrides.
    var lines: [String: Int] = [:]

    package init(_ versions: [String: Int] = [:]) { self.versions = versions }

    /// Reads `active.yaml`: a mapping of prompt ids to positive integers, nothing else.
    static func parse(_ text: String, file: String) -> (pins: PromptPins, problems: [FileProblem]) {
        let document: YAMLDocument
        do {
            document = try YAMLJSON.parse(text, file: file)
        } catch {
            return (PromptPins(), [FileProblem(file: file, line: error.line, message: error.message)])
        }
        guard case .object(let object) = document.root else {
            if case .null = document.root { return (PromptPins(), []) }
            return (PromptPins(), [FileProblem(file: file, line: 1, message: "expected a mapping of prompt ids to versions, e.g. `calendar_events: 1`")])
        }
        var pins = PromptPins()
        var problems: [FileProblem] = []
        for (id, value) in object {
            let line = document.keyLine(at: [.key(id)]) ?? 0
            guard case .integer(let version) = value, version > 0, version <= Int64(Int.max) else {
                problems.append(FileProblem(file: file, line: line, message: "'\(id)': the version must be a positive integer, e.g. `\(id): 1`"))
                continue
            }
            pins.versions[id] = Int(version)
            pins.lines[id] = line
        }
        return (pins, problems)
    }

    /// `calendar_events=2` pairs, from repeated options or a comma-separated environment variable; `source` names
    /// where they came from in errors.
    package static func parse(picks: [String], source: String) throws(PromptLoadError) -> PromptPins {
        var pins = PromptPins()
        for pick in picks.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) where !pick.isEmpty {
            let parts = pick.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let version = Int(parts[1]), version > 0 else {
                throw PromptLoadError(problems: [FileProblem(file: source, line: 0, message: "'\(pick)': expected ID=VERSION, e.g. calendar_events=2")])
            }
            guard pins.versions[parts[0]] == nil else {
                throw PromptLoadError(problems: [FileProblem(file: source, line: 0, message: "names \(parts[0]) twice")])
            }
            pins.versions[parts[0]] = version
        }
        return pins
    }

    /// The pins of `--prompt-version` options over those of `MESSAGEAI_PROMPT_VERSIONS` (each only for this run).
    package static func overrides(options: [String], environment: [String: String]) throws(PromptLoadError) -> PromptPins {
        var pins = try parse(picks: environment[environmentVariable].map { [$0] } ?? [], source: environmentVariable)
        pins.versions.merge(try parse(picks: options, source: "--prompt-version").versions) { _, option in option }
        return pins
    }
}
