import Foundation
import Core
import Extractors
import TestSupport
import Testing

/// `prompts render` outside the repository: MESSAGEAI_HOME finds the prompts and the fixtures, and the combined
/// prompt renders like the extractor prompts.
@Suite("prompts render from anywhere", .serialized)
struct PromptsRenderCombinedTests {
    static func render(_ arguments: String) async throws -> JobsBinary.Result {
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let child = try SpawnedProcess(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "cd / && messageai-jobs prompts render \(arguments)"],
            adding: ["MESSAGEAI_HOME": RepositoryPaths.root.path, "PATH": binaries + ":/usr/bin:/bin"])
        let end = try await child.waitForExit(timeout: 60)
        return JobsBinary.Result(code: end.code, stdout: child.stdout, stderr: child.stderr)
    }

    @Test func combinedRendersWithFixturesFoundUnderTheHome() async throws {
        let combined = try await Self.render("--prompt combined --fixture class-picnic")
        #expect(combined.code == 0, "\(combined.stderr)")
        let body = try JSONValue.parse(Data(combined.stdout.utf8))
        #expect(body["response_format"]?["json_schema"]?["name"]?.stringValue == "combined")
        let properties = body["response_format"]?["json_schema"]?["schema"]?["properties"]?.objectValue?.keys ?? []
        #expect(properties == FeatureRegistry.shipping.ids.map(\.rawValue), "one part per feature: \(properties)")

        // The version prompts/active.yaml pins renders the same as no version; an older one differs.
        let active = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("prompts/active.yaml"), encoding: .utf8)
        let version = try #require(active.split(separator: "\n").first { $0.hasPrefix("combined:") }?
            .split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        let pinned = try await Self.render("--prompt combined@\(version) --fixture class-picnic")
        #expect(pinned.code == 0 && pinned.stdout == combined.stdout, "@\(version) is the pinned version")
        let first = try await Self.render("--prompt combined@1 --fixture class-picnic")
        #expect(first.code == 0 && (version == 1) == (first.stdout == combined.stdout), "@1 renders its own text")
        let known = (1...version).map(String.init).joined(separator: ", ")
        let missing = try await Self.render("--prompt combined@\(version + 1) --fixture class-picnic")
        #expect(missing.code != 0 && missing.stderr.contains("combined: no prompt version \(version + 1) (known: \(known))"), "\(missing.stderr)")
        let unknown = try await Self.render("--prompt nonsense --fixture class-picnic")
        #expect(unknown.code != 0 && unknown.stderr.contains("combined"), "the error lists combined among the known prompts")
    }
}
