import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Core
import PromptKit
import TestSupport
import Testing
import Evaluation

/// The shipped prompts send exactly the request bodies committed in `Tests/Golden/request-bodies/`, byte for byte:
/// each extractor prompt and the combined prompt (its feature list, example and schema filled from the registry) over
/// two fixtures. The goldens are what `messageai-jobs prompts render --prompt P --fixture F` printed before the
/// combined prompt's list of features came from the registry; a prompt change that is meant must update them.
@Suite struct PromptRequestGoldenTests {
    static let golden = RepositoryPaths.root.appendingPathComponent("Tests/Golden/request-bodies")

    @Test(arguments: [CombinedSchema.promptID] + FeatureRegistry.shipping.ids.map(\.rawValue),
          ["class-picnic", "birthday-invite-pending"])
    func theRequestBodyIsTheGolden(prompt: String, fixtureID: String) async throws {
        let fixture = try FixtureLoader.loadFile(EvalTestSupport.fixturesPath + "/\(fixtureID).yaml")
        let library = try PromptLibrary.load(directory: URL(fileURLWithPath: EvalTestSupport.promptsPath))
        let body = prompt == CombinedSchema.promptID
            ? try await PromptRequestCapture.combinedBody(fixture: fixture, prompts: library, structuredOutput: .jsonSchema)
            : try await PromptRequestCapture.body(feature: ExtractionFeature(prompt), version: nil, fixture: fixture,
                                                  prompts: library, structuredOutput: .jsonSchema)
        let file = Self.golden.appendingPathComponent("\(prompt).\(fixtureID).json")
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(body.serialized(pretty: true) + "\n" == expected, "\(file.path) differs from the request the prompt sends")
    }
}
