import AgentRuntime
import Extractors
import Foundation
import JobsKit
import TestSupport
import Testing
import JobsCLI

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
        #expect(settings.registry.ids == FeatureRegistry.shipping.ids)

        flags.rpm = 0
        #expect {
            _ = try Settings(environment: [:], flags: flags)
        } throws: { error in
            "\(error)".contains("--rpm")
        }
    }

    @Test("MESSAGEAI_RUN_LEASE_SECONDS is read with the rest: 300 s when unset, a bad value refused naming it")
    func theRunLeaseIsASetting() throws {
        #expect(try Settings(environment: [:]).runLease == .seconds(300))
        #expect(try Settings(environment: ["MESSAGEAI_RUN_LEASE_SECONDS": " "]).runLease == .seconds(300), "blank counts as unset")
        #expect(try Settings(environment: ["MESSAGEAI_RUN_LEASE_SECONDS": "45"]).runLease == .seconds(45))
        for bad in ["1", "abc", "86401", "2.5"] {
            #expect {
                _ = try Settings(environment: ["MESSAGEAI_RUN_LEASE_SECONDS": bad, "OPENAI_RPM": "60"])
            } throws: { error in
                guard let problems = (error as? SettingsError)?.problems, problems.count == 1 else { return false }
                return problems[0].contains("MESSAGEAI_RUN_LEASE_SECONDS") && problems[0].contains("whole seconds, 2 to 86400")
            }
        }
    }

    @Test("the run lease reaches every service the assembly builds that records job_runs rows")
    func theRunLeaseReachesEveryRecorder() async throws {
        try await TestDatabase.with { db in
            var flags = Settings.Flags()
            flags.provider = .openai
            flags.prompts = WorkerHarness.promptsPath
            // Nothing is sent: the services are only built.
            let environment = ["MESSAGEAI_RUN_LEASE_SECONDS": "45", "DATABASE_URL": db.connectionURL,
                               "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-test-lease"]
            let assembly = Assembly(settings: try Settings(environment: environment, flags: flags))
            try await assembly.withServices { services in
                let lease = Duration.seconds(45)
                #expect(try services.extract().runLease == lease)
                let scan = try services.scan(ScanOptions(), assist: true)
                #expect(scan.runLease == lease)
                #expect(scan.proactive?.runLease == lease)
                #expect(scan.proactive?.assistant?.runLease == lease)
                #expect(try services.proactivePass(ProactivePass.Options()).runLease == lease)
                #expect(try services.assistant()?.runLease == lease)
                #expect(try services.batchSubmit(ScanOptions()).runLease == lease)
                #expect(try services.batchCollect().runLease == lease)
                let worker = try services.worker(WorkerHarness.options(once: true), features: FeatureRegistry.shipping.ids)
                #expect(worker.handler.extract.runLease == lease && worker.handler.assist?.runLease == lease)
            }
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
        } throws: { "\($0)".contains("JOB_COMPLETION_INDEX='3' is not valid: expected a shard index from 0 to 2") }
    }
}
