import ArgumentParser
import Core
import Extractors
import Foundation
import JobsKit
import PromptKit
import Evaluation
import JobsCLI

/// `prompts diff A B`: what changes on the wire between two versions of one prompt, as a unified diff of the
/// requests `prompts render` prints, written as text (one block per message), so a prompt review reads like code review.
struct PromptsDiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Unified diff of what two versions of a prompt send for one fixture (per-feature and combined requests).",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs prompts diff <old> <new> --fixture <fixture> [<options>]",
        discussion: """
            OLD and NEW are ID@VERSION (or ID alone: the pinned version) of one extractor prompt or of `combined`. Each side is \
            the request `prompts render` prints, as text: the settings, then each message, then the response format. \
            For a feature prompt the diff covers both request modes: its own request, and the combined request with \
            that version pinned (its combined_rule is its line there). A request that did not change says so. \
            Exits 0 whether or not they differ; 64 for an unknown prompt or version.

            Example: messageai-jobs prompts diff calendar_events@2 calendar_events@3 --fixture class-picnic
            """
    )

    @Argument(help: "The old version: ID@VERSION, or ID for the pinned one (e.g. calendar_events@2).")
    var old: String

    @Argument(help: "The new version, of the same prompt (e.g. calendar_events@3).")
    var new: String

    @Option(help: "The id of the fixture whose messages fill the prompts.")
    var fixture: String

    @Option(help: "A fixture YAML file or a directory of them.")
    var fixtures: String = "evals/fixtures"

    @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
    var prompts: String?

    func run() async throws {
        let environment = ProcessEnvironment.values
        let library = try ProviderFactory.library(promptsPath: prompts, environment: environment)
        let (id, oldVersion) = try Self.version(old, library: library)
        let (newID, newVersion) = try Self.version(new, library: library)
        guard id == newID else {
            throw ValidationError("prompts diff compares two versions of one prompt: '\(old)' and '\(new)' are different prompts")
        }
        let chosen = try PromptRequestCapture.fixture(fixture, from: fixtures, environment: environment)
        let feature = ExtractionFeature.named(id)
        var sections: [(title: String, old: JSONValue, new: JSONValue)] = []
        do {
            if let feature {
                sections.append(("\(id) request", try await Self.featureBody(feature, oldVersion, chosen, library),
                                 try await Self.featureBody(feature, newVersion, chosen, library)))
            }
            // The combined request with each side pinned: a feature's combined_rule, or the combined prompt itself.
            sections.append(("combined request", try await Self.combinedBody(id, oldVersion, chosen, library),
                             try await Self.combinedBody(id, newVersion, chosen, library)))
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        for section in sections {
            let diff = UnifiedDiff.diff(Self.text(section.old), Self.text(section.new),
                                        oldName: "\(id)@\(oldVersion) (\(section.title), fixture \(fixture))",
                                        newName: "\(id)@\(newVersion) (\(section.title), fixture \(fixture))")
            Console.print(diff ?? "\(section.title): no difference between \(id)@\(oldVersion) and \(id)@\(newVersion)")
        }
    }

    /// `calendar_events@3` → its id and version, checked against the library; `calendar_events` → its pinned version.
    static func version(_ text: String, library: PromptLibrary) throws -> (String, Int) {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        let id = parts.first ?? ""
        guard ExtractionFeature.named(id) != nil || id == CombinedSchema.promptID else {
            throw ValidationError("'\(text)': not an extractor prompt or `combined` (known: "
                                  + "\((ExtractionFeature.allCases.map(\.rawValue) + [CombinedSchema.promptID]).joined(separator: ", ")))")
        }
        let known = library.all.filter { $0.id == id }.map { String($0.version) }.joined(separator: ", ")
        guard parts.count == 2 else {
            guard let pinned = library.active(id: id) else { throw ValidationError("'\(text)': no pinned version (known: \(known))") }
            return (id, pinned.version)
        }
        guard let version = Int(parts[1]), version > 0 else {
            throw ValidationError("'\(text)': the version after @ must be a positive integer")
        }
        guard library.prompt(id: id, version: version) != nil else {
            throw ValidationError("'\(text)': no such prompt version (\(id) has \(known.isEmpty ? "none" : known))")
        }
        return (id, version)
    }

    static func featureBody(_ feature: ExtractionFeature, _ version: Int, _ fixture: Fixture, _ library: PromptLibrary) async throws -> JSONValue {
        try await PromptRequestCapture.body(feature: feature, version: version, fixture: fixture, prompts: library,
                                            structuredOutput: .jsonSchema)
    }

    static func combinedBody(_ id: String, _ version: Int, _ fixture: Fixture, _ library: PromptLibrary) async throws -> JSONValue {
        try await PromptRequestCapture.combinedBody(fixture: fixture, prompts: try library.pinning(PromptPins([id: version]), source: "prompts diff"),
                                                    structuredOutput: .jsonSchema)
    }

    /// A request body as lines: its settings, each message under a `== role ==` line, then the response format.
    static func text(_ body: JSONValue) -> [String] {
        guard let object = body.objectValue else { return body.serialized(pretty: true).components(separatedBy: "\n") }
        var lines: [String] = []
        for key in object.keys.sorted() where key != "messages" && key != "response_format" {
            lines.append("\(key): \(object[key].map { $0.serialized() } ?? "null")")
        }
        for (index, message) in (object["messages"]?.arrayValue ?? []).enumerated() {
            lines.append("== message \(index + 1): \(message["role"]?.stringValue ?? "?") ==")
            lines += (message["content"]?.stringValue ?? message["content"].map { $0.serialized() } ?? "").components(separatedBy: "\n")
        }
        if let format = object["response_format"] {
            lines.append("== response_format ==")
            lines += format.serialized(pretty: true).components(separatedBy: "\n")
        }
        return lines
    }
}
