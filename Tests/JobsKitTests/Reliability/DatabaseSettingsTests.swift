import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// DATABASE_LOCK_TIMEOUT and DATABASE_STATEMENT_TIMEOUT bound every statement of every command, and a value that is not
/// a number of seconds is an error that names the variable.
@Suite("Reliability: database settings")
struct DatabaseSettingsTests {
    @Test(arguments: ["DATABASE_LOCK_TIMEOUT", "DATABASE_STATEMENT_TIMEOUT"])
    func invalidValuesAreAnErrorNamingTheVariable(variable: String) throws {
        for bad in ["abc", "-5", "nan", "inf", "1e12", "30s"] {
            do {
                _ = try PostgresConfiguration.fromEnvironment([variable: bad])
                Issue.record("\(variable)=\(bad) was accepted")
            } catch let error as PostgresError {
                #expect(error.message.contains("\(variable)='\(bad)'"), "\(error.message)")
            }
        }
        #expect(try PostgresConfiguration.fromEnvironment([variable: ""]).lockTimeout == 30, "empty: the default")
        let two = try PostgresConfiguration.fromEnvironment([variable: "2"])
        #expect(variable == "DATABASE_LOCK_TIMEOUT" ? two.lockTimeout == 2 : two.statementTimeout == 2)
    }

    @Test func theCommandRefusesAnInvalidTimeoutBeforeStarting() async throws {
        for variable in ["DATABASE_LOCK_TIMEOUT", "DATABASE_STATEMENT_TIMEOUT"] {
            var environment = SpawnedProcess.inheritedEnvironment()
            environment[variable] = "nan"
            let result = try await SpawnedProcess.run(
                ScanHarness.executable, arguments: ["scan", "--provider", "rules", "--database-url", "postgresql://127.0.0.1:1/none"],
                environment: environment)
            #expect(result.termination != .exit(0))
            #expect(result.stderr.contains("\(variable)='nan' is not valid: expected a number of seconds"), "\(result.stderr)")
            #expect(result.termination == .exit(64))
        }
    }

    @Test("the connection's lock_timeout (DATABASE_LOCK_TIMEOUT) bounds the writes of scan and extract: no 30 s of their own")
    func theLockTimeoutSettingBoundsScanAndExtractWrites() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3, seed: 97)
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[0]
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)
            var configuration = db.configuration
            configuration.lockTimeout = 0.5
            let pool = PostgresPool(configuration: configuration, maxConnections: 4, acquireTimeout: 10)
            // The app holds the conversation's row (FOR UPDATE): every row the scan writes for it waits on its key.
            let holder = try await DatabaseFaultTests.LockHolder.lock(db, "SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE", [victim.id])
            let clock = ContinuousClock()
            let started = clock.now
            let result: Result<ScanService.Summary, any Error>
            do {
                result = .success(try await withTimeout(60, "a scan facing a held row lock") {
                    try await ScanService(pool: pool, engine: engine, options: ScanHarness.options()).run(now: ScanHarness.now)
                })
            } catch {
                result = .failure(error)
            }
            let scanTook = clock.now - started
            var extractError: (any Error)?
            let extractStarted = clock.now
            do {
                _ = try await ExtractService(pool: pool, engine: engine).run(
                    conversationID: victim.id, features: ExtractionFeature.allCases, dryRun: false, now: ScanHarness.now)
            } catch {
                extractError = error
            }
            let extractTook = clock.now - extractStarted
            await holder.release()
            await pool.shutdown()
            let summary = try result.get()

            #expect(summary.conversations == 1 && summary.failed == 1, "\(summary.failures)")
            #expect(summary.failures.first?.error.contains("lock timeout") == true, "\(summary.failures)")
            #expect(scanTook < .seconds(15), "the scan waited \(scanTook), not the setting's 0.5 s")
            #expect((extractError as? PostgresError)?.sqlState == .lockNotAvailable, "\(String(describing: extractError))")
            #expect(extractTook < .seconds(15), "extract waited \(extractTook)")
            // The failure was recorded and the lease released at once.
            let mark = try await Reliability.watermark(db.pool, victim.id)
            #expect(mark.leaseOwner == nil && mark.failures == 1, "\(mark)")
        }
    }
}
