import Foundation
import TestSupport
import Testing

/// `prompts list` and `prompts lint` find relative folders under MESSAGEAI_HOME like every other command (issue 14, item 6).
@Suite("Reliability: prompts commands honour MESSAGEAI_HOME")
struct PromptsHomeTests {
    @Test func listAndLintFindFoldersUnderMessageAIHome() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("messageai-home-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: home) }
        let library = home.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for folder in ["prompts", "schemas"] {
            try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: library.appendingPathComponent(folder))
        }
        // Relative paths that exist only under MESSAGEAI_HOME, not in the working directory.
        let extra = ["MESSAGEAI_HOME": home.path]
        let list = try await Reliability.cli(["prompts", "list", "--prompts", "library/prompts"], databaseURL: nil, extra: extra)
        #expect(list.termination == .exit(0), "\(list.stderr)")
        #expect(list.stdout.contains("calendar_events"))
        let lint = try await Reliability.cli(["prompts", "lint", "--prompts", "library/prompts", "--schemas", "library/schemas"], databaseURL: nil, extra: extra)
        #expect(lint.termination == .exit(0), "\(lint.stdout)\(lint.stderr)")
        #expect(lint.stdout.contains("schemas OK"), "\(lint.stdout)")
        #expect(!lint.stdout.contains(" 0 schemas"), "the schemas were found: \(lint.stdout)")

        let missing = try await Reliability.cli(["prompts", "list", "--prompts", "library/prompts"], databaseURL: nil)
        #expect(missing.termination != .exit(0))
        #expect(missing.stderr.contains("MESSAGEAI_HOME"), "\(missing.stderr)")
    }
}
