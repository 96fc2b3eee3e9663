import TestSupport
import AgentRuntime
import Extractors
import Foundation
import JobsKit
package import Postgres

/// Measures the nightly scan end to end against `BenchOpenAIServer` at a fixed latency: a fresh schema, a
/// generated workload, the real scan (pool, reader, engine, HTTP client, store) — everything but the model.
/// A second run at zero latency shows what the scan itself costs per conversation.
package struct ScanBenchmark: Sendable {
    package struct Options: Sendable {
        package var conversations: Int
        package var days = 7
        package var seed: UInt64 = 1
        package var latency: Duration = .milliseconds(500)
        package var concurrency = 4
        package var promptsPath = "prompts"
        /// Also run at zero latency for the local overhead.
        package var measureOverhead = true
        /// Replaces the HTTP transport's limit on simultaneous connections to one host, which caps requests in flight
        /// whatever the concurrency (each conversation sends one per feature at once); nil measures the production
        /// transport.
        package var maxConnectionsPerHost: Int?

        package init(conversations: Int) { self.conversations = conversations }
    }

    /// One scan over a freshly loaded workload.
    package struct Phase: Sendable, Codable {
        package var latencyMs: Int
        package var messagesLoaded = 0
        package var loadSeconds = 0.0
        /// Conversations the scan processed (the workload's active ones).
        package var scanned = 0
        package var failed = 0
        package var seconds = 0.0
        package var conversationsPerSecond = 0.0
        package var requests = 0
        package var promptTokens = 0
        package var completionTokens = 0
        /// CPU time (user + system) the process used during the scan: waiting on the network should cost little.
        package var cpuSeconds = 0.0
        /// CPU time per model request and per conversation: what waiting on the model costs (the target: at most
        /// 1 ms per request that waits 800 ms). Includes the in-process fake server and the store.
        package var cpuMsPerRequest: Double?
        package var cpuMsPerConversation: Double?
        /// CPU seconds of the in-process fake server's threads during the scan (each reads its own thread clock), and
        /// the process's CPU without them per request and per conversation: the scanner's own cost, since in production
        /// the server is OpenAI's. The scan's `cpuSeconds` above still includes the fake.
        package var serverCPUSeconds: Double?
        package var scanCPUMsPerRequest: Double?
        package var scanCPUMsPerConversation: Double?
        /// CPU per request of the HTTP client's event-loop thread alone (SwiftNIO's `NIO-ELT-…`, from
        /// /proc/self/task; 10 ms tick resolution): the transport's own waiting and socket work. Nil without /proc.
        package var eventLoopCPUMsPerRequest: Double?
    }

    package struct Result: Sendable, Codable {
        package var conversations: Int
        package var days: Int
        package var seed: UInt64
        package var concurrency: Int
        package var latencyMs: Int
        /// The ceiling set by concurrency and latency: C conversations in flight, each about one latency long
        /// (its feature requests run in parallel). Nil at zero latency.
        package var boundPerSecond: Double?
        /// The ceiling for this run's count: its conversations in whole waves of C, each one latency long
        /// (`scanned / (⌈scanned / C⌉ × latency)`). Below `boundPerSecond` when the last wave is partial: 100
        /// conversations at C = 64 are two waves, at most 62.5/s. Nil at zero latency.
        package var runBoundPerSecond: Double?
        package var run: Phase
        package var zeroLatency: Phase?
        /// Wall time per conversation at zero latency (with the same concurrency): the scan's own cost.
        package var overheadMsPerConversation: Double?
        /// The connection limit per host when the benchmark replaced it; nil: the production transport's.
        package var maxConnectionsPerHost: Int?
        /// VmHWM of this process (scan, pool and the in-process fake server), in MiB; nil where /proc is missing.
        package var peakMemoryMiB: Double?
    }

    package let database: PostgresConfiguration

    /// Where `MESSAGEAI_HOME` and the other settings the benchmark's engine reads come from (the binary's one read).
    package let environment: [String: String]

    package init(database: PostgresConfiguration, environment: [String: String] = [:]) {
        self.database = database
        self.environment = environment
    }

    package func run(_ options: Options, log: @Sendable (String) -> Void = { _ in }) async throws -> Result {
        guard (1...64).contains(options.concurrency) else { throw BenchError("--concurrency must be between 1 and 64") }
        let now = Date()
        log("scan at \(options.latency.wholeMilliseconds) ms latency, concurrency \(options.concurrency)")
        let main = try await phase(options, latency: options.latency, now: now)
        var zero: Phase?
        if options.measureOverhead, options.latency > .zero {
            log("scan at zero latency (local overhead)")
            zero = try await phase(options, latency: .zero, now: now)
        } else if options.latency == .zero {
            zero = main
        }
        let latencySeconds = options.latency.seconds
        return Result(
            conversations: options.conversations, days: options.days, seed: options.seed, concurrency: options.concurrency,
            latencyMs: Int(options.latency.wholeMilliseconds),
            boundPerSecond: latencySeconds > 0 ? Double(options.concurrency) / latencySeconds : nil,
            runBoundPerSecond: latencySeconds > 0 && main.scanned > 0
                ? Double(main.scanned) / (Double((main.scanned + options.concurrency - 1) / options.concurrency) * latencySeconds) : nil,
            run: main, zeroLatency: zero,
            overheadMsPerConversation: zero.flatMap { $0.scanned > 0 ? $0.seconds * 1000 / Double($0.scanned) : nil },
            maxConnectionsPerHost: options.maxConnectionsPerHost,
            peakMemoryMiB: Self.peakMemoryMiB())
    }

    private func phase(_ options: Options, latency: Duration, now: Date) async throws -> Phase {
        let spec = WorkloadSpec(conversations: options.conversations, days: options.days, seed: options.seed, now: now)
        let workload = try WorkloadGenerator.make(spec)
        // The production transport unless the benchmark replaces its connection limit; a replacement is shut down after.
        let ownTransport = options.maxConnectionsPerHost.map { limit in
            var transportOptions = AsyncHTTPClientTransport.Options()
            transportOptions.maxConnectionsPerHost = limit
            return AsyncHTTPClientTransport(options: transportOptions)
        }
        let transport: any HTTPTransport = ownTransport ?? AsyncHTTPClientTransport.shared
        let engineProvider = { (server: BenchOpenAIServer) throws -> ExtractionEngine in
            let client = OpenAIClient(
                configuration: LLMConfiguration(baseURL: server.baseURL, defaultModel: "bench-model", retryPolicy: .noRetries,
                                                 maxConcurrency: BenchOpenAIServer.clientConcurrency),
                transport: transport)
            return try ExtractionEngine(prompts: try ProviderFactory.library(promptsPath: options.promptsPath, environment: environment),
                                        provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema))
        }
        do {
            let phase = try await measure(options, latency: latency, now: now, workload: workload, engineProvider: engineProvider)
            try await ownTransport?.shutdown()
            return phase
        } catch {
            try? await ownTransport?.shutdown()
            throw error
        }
    }

    private func measure(_ options: Options, latency: Duration, now: Date, workload: Workload,
                         engineProvider: @escaping (BenchOpenAIServer) throws -> ExtractionEngine) async throws -> Phase {
        // The scan command's default pool size, so the benchmark measures what production runs.
        return try await ScratchSchema.with(database, connections: ScanOptions.defaultDatabaseConnections(concurrency: options.concurrency)) { pool in
            var phase = Phase(latencyMs: Int(latency.wholeMilliseconds))
            let load = try await WorkloadLoader(pool: pool).load(workload)
            phase.messagesLoaded = load.messages
            phase.loadSeconds = load.seconds
            let server = try BenchOpenAIServer(latency: latency)
            defer { server.stop() }
            var scan = ScanOptions()
            scan.concurrency = options.concurrency
            scan.owner = "bench"
            let cpuBefore = Self.cpuSeconds()
            let serverBefore = server.cpuSeconds
            let eventLoopBefore = Self.eventLoopCPUSeconds()
            let summary = try await ScanService(pool: pool, engine: try engineProvider(server), options: scan).run(now: now)
            phase.cpuSeconds = Self.cpuSeconds() - cpuBefore
            let serverCPU = server.cpuSeconds - serverBefore
            phase.serverCPUSeconds = serverCPU
            phase.scanCPUMsPerRequest = summary.requests > 0 ? (phase.cpuSeconds - serverCPU) * 1000 / Double(summary.requests) : nil
            phase.scanCPUMsPerConversation = summary.conversations > 0
                ? (phase.cpuSeconds - serverCPU) * 1000 / Double(summary.conversations) : nil
            if let before = eventLoopBefore, let after = Self.eventLoopCPUSeconds(), summary.requests > 0 {
                phase.eventLoopCPUMsPerRequest = (after - before) * 1000 / Double(summary.requests)
            }
            phase.cpuMsPerRequest = summary.requests > 0 ? phase.cpuSeconds * 1000 / Double(summary.requests) : nil
            phase.cpuMsPerConversation = summary.conversations > 0 ? phase.cpuSeconds * 1000 / Double(summary.conversations) : nil
            phase.scanned = summary.conversations
            phase.failed = summary.failed
            phase.seconds = summary.seconds
            phase.conversationsPerSecond = summary.seconds > 0 ? Double(summary.conversations) / summary.seconds : 0
            phase.requests = summary.requests
            phase.promptTokens = summary.usage.promptTokens
            phase.completionTokens = summary.usage.completionTokens
            if let failure = summary.failures.first {
                throw BenchError("the benchmark scan failed for \(summary.failed) conversation(s); first: \(failure.error)")
            }
            return phase
        }
    }

    /// User plus system CPU time of the whole process so far.
    package static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// User plus system CPU time so far of SwiftNIO's event-loop threads in this process, nil without /proc.
    static func eventLoopCPUSeconds() -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticksPerSecond > 0 else { return nil }
        var ticks = 0.0
        for task in tasks {
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8), name.hasPrefix("NIO-ELT"),
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let nameEnd = stat.lastIndex(of: ")") else { continue }
            // After the parenthesised name: state is field 3, utime field 14, stime field 15 (proc(5)).
            let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            ticks += user + system
        }
        return ticks / ticksPerSecond
    }

    /// The process's peak resident set (VmHWM) from /proc/self/status.
    package static func peakMemoryMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kib / 1024
    }
}
