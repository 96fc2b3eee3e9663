import AgentRuntime
import Extractors
import Foundation
@testable import JobsKit
import TestSupport
import Testing
import Evaluation

/// The module error structs: codes compare by kind, the message is printed exactly as the former error types printed
/// it, and a conversation's failure signature (what quarantine compares night to night) is what it was.
@Suite("Error codes")
struct ErrorCodeTests {
    @Test func jobsErrorCodesCompareByKindAndPrintTheMessage() {
        let missing = JobsError.notFound("no user with id 00000000-0000-0000-0000-000000000001")
        #expect(missing.code == .notFound)
        #expect(missing.code != .invalidInput && missing.code != .conflict)
        #expect("\(missing)" == "no user with id 00000000-0000-0000-0000-000000000001")
        #expect(missing == JobsError(.notFound, missing.message))
        #expect(missing != JobsError(.invalidInput, missing.message))
        let codes: [JobsError.Code] = [.invalidInput, .notFound, .conflict, .invalidRecord, .promptProblem, .llmNotConfigured, .noAnswer]
        #expect(Set(codes).count == codes.count)
        #expect(codes.map(\.description) == ["invalidInput", "notFound", "conflict", "invalidRecord", "promptProblem", "llmNotConfigured", "noAnswer"])
        #expect(JobsError.invalidRecord("llm_batches x: unknown feature 'y'").code == .invalidRecord)
        #expect(JobsError.conflict("cannot retry").code == .conflict)
        #expect(JobsError.invalidInput("shard").code == .invalidInput)
        #expect(JobsError.promptProblem("no prompt").code == .promptProblem)
    }

    @Test func theWorkerFailsAtOnceOnlyWithoutAnLLM() {
        let noLLM = JobsError.llmNotConfigured(requestID: 7)
        #expect(noLLM.code == .llmNotConfigured && noLLM.isPermanent && noLLM.runID == nil)
        #expect(noLLM.description == "assist request 7 needs an LLM, but no LLM is configured for this worker: start it with "
            + "OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (an OpenAI-compatible server) set, then run `messageai-jobs requests retry 7`")
        let run = UUID(uuidString: "00000000-0000-4000-8000-0000000000ab")!
        let noAnswer = JobsError.noAnswer(stopReason: .maxSteps, runID: run)
        #expect(noAnswer.code == .noAnswer && !noAnswer.isPermanent && noAnswer.runID == run)
        #expect(noAnswer.description == "the assistant gave no valid answer (stop reason max_steps; see job_runs 00000000-0000-4000-8000-0000000000ab)")
        #expect(!JobsError.notFound("no conversation with id x").isPermanent)
    }

    @Test func aBadShardIsAnInvalidInputSayingTheForm() {
        let error = #expect(throws: JobsError.self) { try ScanOptions.parseShard("3/2") }
        #expect(error?.code == .invalidInput)
        #expect(error?.description == "shard '3/2' must be i/N with 0 <= i < N, e.g. 0/4")
    }

    @Test func failureSignaturesKeepTheirFormerText() {
        let record = JobsError.invalidRecord("llm_batch_conversations.input of conversation 1f2e: unknown time zone 'Mars/Base'")
        #expect(FailureSignature.of(record) == FailureSignature.of(ExtractionError.invalidInput(record.message)))
        #expect(FailureSignature.of(record)?.hasPrefix("invalid input ") == true)
        #expect(FailureSignature.of(JobsError.promptProblem("assistant.yaml: no schema")) == nil)
    }

    @Test func providerErrorCodesCompareAndPrintAsBefore() throws {
        let error = #expect(throws: ProviderError.self) { try ProviderFactory.resolve(.openai, configuration: nil) }
        #expect(error?.code == .notConfigured)
        #expect(error == ProviderError.notConfigured)
        #expect(error?.description.hasPrefix("no LLM is configured. Set OPENAI_API_KEY to use OpenAI, or OPENAI_BASE_URL") == true)
        #expect(error?.description.hasSuffix("or pass --provider rules to run without an LLM") == true)
        let codes: [ProviderError.Code] = [.notConfigured, .invalidSetting, .promptsNotFound, .promptsDoNotLoad]
        #expect(Set(codes).count == codes.count)
        #expect(ProviderError(.promptsNotFound, "x") != ProviderError(.promptsDoNotLoad, "x"))

        let unloadable = #expect(throws: ProviderError.self) {
            try ProviderFactory.library(promptsPath: nil, versions: ["calendar_events=999"], environment: [:])
        }
        // A pin naming no version is a setting's problem (exit 64), in the settings' one wording (issue 48 item 5).
        #expect(unloadable?.code == .invalidSetting)
        #expect(unloadable?.description.hasPrefix("--prompt-version 'calendar_events=999' is not valid: expected") == true)
    }

    @Test func evalRunErrorCodesCompareAndPrintTheMessage() {
        let usage = EvalRunError("--features names no feature")
        #expect(usage.code == .usage)
        #expect("\(usage)" == "--features names no feature")
        #expect(usage != EvalRunError(.invalidFixture, usage.message))
        let codes: [EvalRunError.Code] = [.usage, .fixturesDoNotLoad, .promptsDoNotLoad, .invalidFixture, .reportNotWritten]
        #expect(Set(codes).count == codes.count)
    }

    @Test func aFixtureInAnUnknownZoneIsAnInvalidFixture() throws {
        var fixture = try FixtureLoader.loadFile(RepositoryPaths.root.appendingPathComponent("evals/fixtures/class-picnic.yaml").path)
        fixture.reference.timezone = "Mars/Olympus_Mons"
        let error = #expect(throws: EvalRunError.self) { try FixtureConversation.input(fixture) }
        #expect(error?.code == .invalidFixture)
        #expect(error?.description == "fixture '\(fixture.id)': reference.timezone 'Mars/Olympus_Mons' is not a known time zone")
    }
}
