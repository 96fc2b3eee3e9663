import Foundation
import Bench
import JobsKit
import Testing
import TestSupport

/// The proactive benchmark on a small workload: what it reports holds (the figures themselves go to benchmarks/).
@Suite struct ProactiveBenchmarkTests {
    @Test func aSmallWorkloadFindsThingsAndTheSecondPassAddsNothing() async throws {
        var options = ProactiveBenchmark.Options(conversations: 30)
        options.seed = 7
        options.promptsPath = RepositoryPaths.root.appendingPathComponent("prompts").path
        let result = try await ProactiveBenchmark(database: try TestDatabase.baseConfiguration()).run(options)
        #expect(result.users > 0)
        #expect(result.usersWithFindings > 0, "the generated chats plan dates, RSVPs and deadlines")
        #expect(result.secondPassNew == 0 && result.secondPassResolved == 0)
        // The fake model ranks exactly the findings it was given: nothing is dropped, one run per user with findings.
        #expect(result.llmRuns == result.usersWithFindings)
        #expect(result.droppedItems == 0)
        #expect(result.promptTokensPerUser > 0)
    }
}
