@testable import Extractors
import Foundation
import PromptKit
import TestSupport
import Testing

/// A feature's prompt file reaches both request modes: its `combined_rule` is its line in the combined request, so
/// pinning a new version of the feature changes what a combined scan sends (issue 48: before, the combined request was
/// filled from code and an edited feature prompt never reached it).
@Suite struct CombinedRuleTests {
    /// A calendar_events version after every shipped one, not pinned.
    static let testVersion = 99

    /// The repository's prompts with `calendar_events@99`: the shipped version 3 with `rule` as its combined_rule.
    static func libraryWithVersion3(rule: String?) throws -> (PromptLibrary, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("combined-rule-\(UUID().uuidString)")
        for folder in ["prompts", "schemas"] {
            try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
        }
        let v2 = try String(contentsOf: root.appendingPathComponent("prompts/calendar_events.v3.yaml"), encoding: .utf8)
        var lines = v2.components(separatedBy: "\n").map { $0 == "version: 3" ? "version: \(testVersion)" : $0 }
        let ruleLine = try #require(lines.firstIndex(of: "combined_rule: >-"))
        if let rule { lines[ruleLine + 1] = "  " + rule } else { lines.removeSubrange(ruleLine...(ruleLine + 1)) }
        try lines.joined(separator: "\n").write(to: root.appendingPathComponent("prompts/calendar_events.v\(testVersion).yaml"), atomically: true, encoding: .utf8)
        return (try PromptLibrary.load(directory: root.appendingPathComponent("prompts")), root)
    }

    static func combinedSystem(_ library: PromptLibrary, versions: [ExtractionFeature: Int] = [:]) throws -> String {
        let engine = try ExtractionEngine(prompts: library, provider: RulesAnswerProvider(), promptVersions: versions)
        return try engine.combinedPrompt().system
    }

    @Test func anEditedFeaturePromptReachesTheCombinedRequestOnceChosen() throws {
        let rule = "dated occasions only, said in a new way for this test."
        let (library, root) = try Self.libraryWithVersion3(rule: rule)
        defer { try? FileManager.default.removeItem(at: root) }
        let pinned = try Self.combinedSystem(library)
        #expect(!pinned.contains(rule), "a new version changes nothing until it is chosen")
        // Chosen for one run (--prompt-version, MESSAGEAI_PROMPT_VERSIONS) or pinned in active.yaml: the same request.
        let picked = try Self.combinedSystem(library, versions: [.calendarEvents: Self.testVersion])
        #expect(picked.contains("\n- calendar_events: \(rule)\n"), "\(picked)")
        let moved = try Self.combinedSystem(try library.pinning(PromptPins(["calendar_events": Self.testVersion])))
        #expect(moved == picked)
        // The combined prompt's hash (job_runs.prompts, eval reports, recorded answers) follows the rule.
        let before = try ExtractionEngine(prompts: library, provider: RulesAnswerProvider()).combinedPrompt().fingerprint
        let after = try ExtractionEngine(prompts: library, provider: RulesAnswerProvider(), promptVersions: [.calendarEvents: Self.testVersion])
            .combinedPrompt().fingerprint
        #expect(before.sha256 != after.sha256 && before.version == after.version)
    }

    @Test func theShippedPinnedPromptsCarryTheirOwnRules() throws {
        // Every pinned feature prompt states its combined rule, so editing the file is enough; the built-in rule is only
        // the default for a prompt file without one (older versions, a feature registered in code).
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        for feature in FeatureRegistry.shipping.features {
            let prompt = try #require(library.active(id: feature.id.promptID))
            #expect(prompt.combinedRule != nil, "\(prompt.sourceFile) has no combined_rule")
        }
        // Moving the rules into the files changed no byte of the combined request (recorded answers stay valid): the
        // versions of that move (calendar_events 3, decisions 3, priority_messages 4, rsvps 3 and before) say the
        // built-in rules word for word.
        let builtIn = FeatureRegistry.shipping.features.map { "- \($0.id.rawValue): \($0.combinedRule)" }.joined(separator: "\n")
        let move: [ExtractionFeature: Int] = [.calendarEvents: 3, .decisions: 3, .priorityMessages: 4, .rsvps: 3]
        #expect(try Self.combinedSystem(library, versions: move).contains(builtIn))
    }

    @Test func aVersionWithoutARuleFallsBackToTheFeaturesBuiltInRule() throws {
        let (library, root) = try Self.libraryWithVersion3(rule: nil)
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(library.prompt(id: "calendar_events", version: Self.testVersion)?.combinedRule == nil)
        #expect(try Self.combinedSystem(library, versions: [.calendarEvents: Self.testVersion]).contains("\n- calendar_events: \(CalendarEvents().combinedRule)\n"))
    }

    @Test func aBadRuleIsAnErrorNamingTheFileAndKey() throws {
        for (bad, message) in [("\"\"", "must not be empty"), ("\"a {{messages}} b\"", "may not hold a placeholder")] {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("combined-rule-bad-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            for folder in ["prompts", "schemas"] {
                try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
            }
            let file = root.appendingPathComponent("prompts/rsvps.v3.yaml")
            var lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            let index = try #require(lines.firstIndex(of: "combined_rule: >-"))
            lines[index] = "combined_rule: \(bad)"
            lines.remove(at: index + 1)
            try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            let error = #expect(throws: PromptLoadError.self) { try PromptLibrary.load(directory: root.appendingPathComponent("prompts")) }
            #expect(error?.problems.contains { $0.file.hasSuffix("rsvps.v3.yaml") && $0.message.contains(message) } == true,
                    "\(String(describing: error?.problems))")
        }
    }
}
