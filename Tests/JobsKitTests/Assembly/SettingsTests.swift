import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Testing

/// `Settings` reads the environment and the flags once and checks them together (issue 39 item 2).
@Suite("Settings: read once, checked together")
struct SettingsTests {
    @Test func everyBadVariableIsReportedAtOnceNamingIt() {
        let environment = ["OPENAI_TPM": "lots", "LOG_LEVEL": "verbose", "MESSAGEAI_TIMEZONE": "Mars/Base", "OPENAI_RPM": "60"]
        #expect {
            _ = try Settings(environment: environment)
        } throws: { error in
            guard let problems = (error as? SettingsError)?.problems else { return false }
            return problems.count == 3 && problems.contains { $0.contains("OPENAI_TPM") } && problems.contains { $0.contains("LOG_LEVEL") }
                && problems.contains { $0.contains("MESSAGEAI_TIMEZONE") }
        }
    }

    @Test func theDatabasePasswordIsNeverEchoed() {
        #expect {
            _ = try Settings(environment: ["DATABASE_URL": "host=h password=hunter2-SECRET port"])
        } throws: { error in
            "\(error)".contains("DATABASE_URL") && !"\(error)".contains("hunter2")
        }
    }

    @Test func aFlagOverridesItsVariableAndABadFlagIsNamed() throws {
        var flags = Settings.Flags()
        flags.rpm = 30
        flags.llmConcurrency = 3
        flags.timeZone = "Europe/Paris"
        flags.perFeature = true
        let settings = try Settings(environment: ["OPENAI_RPM": "5", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "MESSAGEAI_TIMEZONE": "Asia/Tokyo"],
                                    flags: flags)
        #expect(settings.rateLimits.requestsPerMinute == 30)
        #expect(settings.llm?.maxConcurrency == 3)
        #expect(settings.zones.fallback.identifier == "Europe/Paris")
        #expect(settings.requestMode == .perFeature)
        #expect(settings.registry.ids == FeatureRegistry.parents.ids)

        flags.rpm = 0
        #expect {
            _ = try Settings(environment: [:], flags: flags)
        } throws: { error in
            "\(error)".contains("--rpm")
        }
    }

    @Test func noLLMConfiguredIsNilNotAnError() throws {
        let settings = try Settings(environment: [:])
        #expect(settings.llm == nil)
        #expect(settings.requestMode == .productDefault)
    }

    @Test func theShardIsParsedOnceAutoFromTheJobIndex() throws {
        let given = try Settings.shard("1/4", environment: [:])
        #expect(given.index == 1 && given.count == 4)
        let auto = try Settings.shard("auto/3", environment: ["JOB_COMPLETION_INDEX": "2"])
        #expect(auto.index == 2 && auto.count == 3)
        #expect {
            _ = try Settings.shard("auto/3", environment: [:])
        } throws: { "\($0)".contains("JOB_COMPLETION_INDEX") }
        #expect {
            _ = try Settings.shard("auto/3", environment: ["JOB_COMPLETION_INDEX": "3"])
        } throws: { "\($0)".contains("must be i/N") }
    }
}
