// swift-tools-version: 6.0
// MessageAI Assistant Jobs: the AI back end of MessageAI, run as batch jobs beside the app's Postgres.
import PackageDescription

/// Every target is internal by default: a declaration another module uses is `package`, an import that a `package`
/// signature needs is `package import`. No target is a library product, so nothing is `public`.
let internalByDefault: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "messageai-jobs",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "messageai-jobs", targets: ["jobs"]),
        // Benchmarks: a separate binary so that fake servers and seed-design prompts never ship in messageai-jobs.
        .executable(name: "messageai-bench", targets: ["messageai-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The production HTTP transport: one event-loop thread waits on every request in flight.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // SHA-256 of the prompt set in use (`--version`, `job_runs`).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // The worker's metrics: recorded through the swift-metrics API, served in Prometheus text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The worker's metrics endpoint (/healthz, /readyz, /metrics): an HTTP server run as a ServiceLifecycle service.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // Floor 0: libpq, as a system library (no Swift sources of its own).
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // Floor 0: time and dates (durations, the one clock protocol), the one retry policy, JSON values and JSON Schema
        // validation, YAML read into JSON values with each node's line, the one shape of an error's `code`, and,
        // compiled in by Plugins/EmbedFiles, the shipped prompts, schemas and migrations and the version and git commit.
        .target(
            name: "Core",
            dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "Yams", package: "Yams")],
            swiftSettings: internalByDefault,
            plugins: ["EmbedFiles"]
        ),
        .plugin(name: "EmbedFiles", capability: .buildTool()),
        // Floor 1: the Postgres layer over libpq and the schema it owns (migrations).
        .target(
            name: "Postgres",
            dependencies: ["CLibPQ", "Core", .product(name: "Logging", package: "swift-log")],
            // The SQL is embedded in the binary through Core (Plugins/EmbedFiles).
            exclude: ["Migrations/SQL"],
            swiftSettings: internalByDefault
        ),
        // Floor 1: the LLM client (HTTP transport, retries) and the agent loop.
        .target(
            name: "AgentRuntime",
            dependencies: [
                "Core", .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 1: prompts from YAML (the shipped set and `--prompts DIR`) and their hash.
        .target(
            name: "PromptKit",
            dependencies: ["Core", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: internalByDefault
        ),
        // Floor 2: the pipeline (docs/pipeline.md): input (the reader, the pre-filter, windows), the engine (its builder,
        // answer providers, cost), grounding (evidence, field backing, dates), reconciliation over nights, the store,
        // the rule-based provider, each feature in its folder (its type, its scored type, its rules), and the
        // labelled fixtures and scorer.
        .target(
            name: "Extractors",
            dependencies: [
                "AgentRuntime", "Core", "PromptKit", "Postgres",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 2: the assistant's tools bound to one user over Postgres, and the proactive pass's findings computed
        // by code (conflicts, RSVPs, deadlines, reminders).
        .target(
            name: "Tools",
            dependencies: ["AgentRuntime", "Core", "Postgres"],
            swiftSettings: internalByDefault
        ),
        // Floor 3: the offline evaluator: eval runs over labelled fixtures, recorded and labels answers, request export,
        // the answer cache and the reports (text, Markdown, HTML). No database.
        .target(
            name: "Evaluation",
            dependencies: [
                "AgentRuntime", "Core", "Extractors", "PromptKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 3: the services over the database: scan, extract, assist and the proactive pass, batch, the request
        // worker and its metrics endpoint (on Hummingbird), and the runs they record in `job_runs`.
        .target(
            name: "JobsKit",
            dependencies: [
                "AgentRuntime", "Core", "Extractors", "Postgres", "PromptKit", "Tools",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 4: the command-line assembly both executables share: settings (flags over environment), the option
        // groups, logging and console output, the demo data and the parent's view, and the services built from them.
        .target(
            name: "JobsCLI",
            dependencies: [
                "AgentRuntime", "Core", "Evaluation", "Extractors", "JobsKit", "Postgres", "PromptKit", "Tools",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 5: the CLI, messageai-jobs. Never links TestSupport or Bench.
        .executableTarget(
            name: "jobs",
            dependencies: [
                "AgentRuntime", "Core", "Evaluation", "Extractors", "JobsCLI", "JobsKit", "Postgres", "PromptKit", "Tools",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 5: test support, never linked into messageai-jobs: the tests' and benchmarks' loopback HTTP server
        // (HTTPServer, on SwiftNIO, with the ways a model server fails on purpose), a scripted OpenAI-compatible
        // server on it, raw socket exchanges, per-test databases, the harnesses that drive the services and the built
        // binary (Harness/), the seeded generator (SplitMix64) of the tests' noise and the workload generator.
        .target(
            name: "TestSupport",
            dependencies: [
                "AgentRuntime", "Core", "Evaluation", "Extractors", "JobsCLI", "JobsKit", "Postgres", "PromptKit", "Tools",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: internalByDefault
        ),
        // Floor 6: benchmarks (fake OpenAI-compatible servers, seed-design simulation, the benchmarks themselves); never
        // linked into messageai-jobs.
        .target(
            name: "Bench",
            dependencies: ["AgentRuntime", "Core", "Extractors", "JobsKit", "Postgres", "PromptKit", "TestSupport", "Tools"],
            swiftSettings: internalByDefault
        ),
        // Floor 7: the benchmarks' executable, messageai-bench.
        .executableTarget(
            name: "messageai-bench",
            dependencies: [
                "AgentRuntime", "Bench", "Core", "Extractors", "JobsCLI", "JobsKit", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: internalByDefault
        ),
        // One test target per source target, named after it (TestSupportTests: the loopback servers the tests build on).
        .testTarget(name: "CoreTests", dependencies: ["Core", "TestSupport"]),
        .testTarget(name: "PostgresTests", dependencies: ["Core", "Postgres", "TestSupport"]),
        .testTarget(
            name: "AgentRuntimeTests",
            dependencies: ["AgentRuntime", "Core", "TestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        .testTarget(name: "PromptKitTests", dependencies: ["PromptKit", "Core", "TestSupport"]),
        .testTarget(name: "ToolsTests", dependencies: ["Tools", "AgentRuntime", "Core", "Postgres", "TestSupport"]),
        .testTarget(
            name: "ExtractorTests",
            // JobsKit, JobsCLI and Evaluation: a sixth feature is proved through every command that ships it.
            dependencies: [
                "Extractors", "AgentRuntime", "Core", "Evaluation", "JobsCLI", "JobsKit", "PromptKit", "Postgres", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // The dummy sixth feature's prompt, schema, migration and labelled fixture (Features/SixthFeature*Tests.swift).
            resources: [.copy("Resources/SixthFeature")]
        ),
        .testTarget(
            name: "EvaluationTests",
            dependencies: ["Evaluation", "AgentRuntime", "Core", "Extractors", "PromptKit", "Postgres", "TestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        .testTarget(
            name: "JobsKitTests",
            dependencies: [
                "JobsKit", "JobsCLI", "Evaluation", "Core", "Extractors", "Postgres", "PromptKit", "Tools", "TestSupport", "AgentRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .testTarget(
            name: "JobsCLITests",
            dependencies: [
                "JobsCLI", "JobsKit", "Evaluation", "Core", "Extractors", "Postgres", "PromptKit", "Tools", "TestSupport",
                "AgentRuntime", .product(name: "Logging", package: "swift-log"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BenchTests",
            dependencies: ["Bench", "JobsKit", "AgentRuntime", "Core", "Postgres", "TestSupport"]
        ),
    ]
)
