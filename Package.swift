// swift-tools-version: 6.0
// MessageAI Assistant Jobs: the AI back end of MessageAI, run as batch jobs beside the app's Postgres.
import PackageDescription

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
    ],
    targets: [
        // Floor 1: libpq, the Postgres layer and the schema it owns.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "Chrono", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // Floor 0: the one shape of an error's `code`, shared by the modules' error structs.
        .target(name: "ErrorCode"),
        // Floor 0: the shipped prompts, schemas and migrations, and the version and git commit, compiled in
        // (Plugins/EmbedFiles).
        .target(name: "Embedded", plugins: ["EmbedFiles"]),
        .target(name: "BuildStamp", plugins: ["EmbedFiles"]),
        .plugin(name: "EmbedFiles", capability: .buildTool()),
        // Floor 1: the one feature-id type, shared by the extractors and the scorer (the scorer cannot see the extractors).
        .target(name: "FeatureKit"),
        .target(
            name: "Postgres",
            dependencies: ["CLibPQ", "Chrono", "JSONKit", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "Migrations",
            dependencies: ["Postgres", "Embedded", "ErrorCode"],
            // Embedded in the binary through the Embedded module.
            exclude: ["SQL"]
        ),
        // Floor 1: JSON values, JSON Schema validation, the LLM client and the agent loop.
        .target(name: "JSONKit", dependencies: ["Chrono"]),
        .target(
            name: "AgentRuntime",
            dependencies: [
                "JSONKit", .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Floor 2: YAML read into JSON values with each node's line (prompts, fixtures, the price table).
        .target(name: "YAMLKit", dependencies: ["JSONKit", .product(name: "Yams", package: "Yams")]),
        // Floor 2: prompts from YAML; tools bound to one user over Postgres.
        .target(
            name: "PromptKit",
            dependencies: ["JSONKit", "Embedded", "YAMLKit", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "Tools",
            dependencies: ["AgentRuntime", "Chrono", "JSONKit", "Postgres"]
        ),
        // Floor 3: the proactive pass's findings computed by code (conflicts, RSVPs, deadlines, reminders).
        .target(
            name: "Proactive",
            dependencies: ["Chrono", "JSONKit", "Postgres"]
        ),
        // Floor 3: the five extractors, the date resolver and the rule-based provider; each feature maps its items to
        // the scorer's labels (Evals).
        .target(
            name: "Extractors",
            dependencies: [
                "AgentRuntime", "Chrono", "Evals", "FeatureKit", "JSONKit", "PromptKit", "Postgres",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Floor 2: labelled fixtures and the scorer (no LLM, no database), one scoring file per feature.
        .target(
            name: "Evals",
            dependencies: ["Chrono", "Embedded", "FeatureKit", "JSONKit", "YAMLKit"]
        ),
        // Floor 4: which answer provider a run uses, and what its tokens cost (the price table).
        .target(
            name: "Providers",
            dependencies: ["AgentRuntime", "ErrorCode", "Extractors", "JSONKit", "PromptKit", "YAMLKit"]
        ),
        // Floor 4: orchestration (demo data, extract, assist, scan, eval runs).
        .target(
            name: "JobsKit",
            dependencies: [
                "AgentRuntime", "BuildStamp", "Chrono", "ErrorCode", "Extractors", "JSONKit", "Postgres", "PromptKit", "Proactive", "Providers", "Tools",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Floor 4: the worker's opt-in HTTP endpoint (/healthz, /readyz, /metrics) and its Prometheus registry.
        .target(
            name: "MetricsEndpoint",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Floor 4: the eval runner and its reports (fixtures through the real engine, cache, baselines, HTML/Markdown).
        .target(
            name: "JobsEval",
            dependencies: ["Providers", "AgentRuntime", "Chrono", "ErrorCode", "Evals", "Extractors", "FeatureKit", "JSONKit", "PromptKit", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Floor 4: benchmarks (workload generator, fake OpenAI-compatible servers, seed-design simulation).
        .target(
            name: "Bench",
            dependencies: [
                "JobsKit", "AgentRuntime", "Chrono", "Extractors", "JSONKit", "LoopbackHTTP", "Migrations", "Postgres", "PromptKit", "Proactive",
                "Providers", "SeededRandom",
            ]
        ),
        // Floor 5: options and console output shared by the two executables.
        .target(
            name: "CLISupport",
            dependencies: ["Chrono", "JSONKit", "Migrations", "Postgres", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")]
        ),
        // Floor 5: the CLI.
        .executableTarget(
            name: "jobs",
            // Exactly the modules its commands import.
            dependencies: [
                "BuildStamp", "CLISupport", "JobsKit", "JobsEval", "AgentRuntime", "Chrono", "Evals", "Extractors", "JSONKit", "Migrations",
                "MetricsEndpoint", "Postgres", "Proactive", "PromptKit", "Providers", "YAMLKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "messageai-bench",
            dependencies: [
                "Bench", "CLISupport", "Chrono", "JobsKit", "Extractors", "AgentRuntime", "Providers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // One HTTP/1.1 server on 127.0.0.1 with fault injection, for the tests' fake model and the benchmarks' servers;
        // never linked into messageai-jobs.
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The seeded generator (SplitMix64) of the benchmarks' workloads and the tests' noise; never linked into messageai-jobs.
        .target(name: "SeededRandom"),
        // Test support: a scripted OpenAI-compatible server on loopback and per-test databases.
        .target(
            name: "TestSupport",
            dependencies: ["AgentRuntime", "Postgres", "Migrations", "JSONKit", "Chrono", "Evals", "Extractors", "LoopbackHTTP"]
        ),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "Migrations", "TestSupport"]),
        .testTarget(name: "JSONKitTests", dependencies: ["JSONKit", "TestSupport"]),
        .testTarget(name: "AgentRuntimeTests", dependencies: ["AgentRuntime", "JSONKit", "LoopbackHTTP", "TestSupport"]),
        .testTarget(name: "PromptKitTests", dependencies: ["PromptKit", "JSONKit", "YAMLKit", "TestSupport"]),
        .testTarget(name: "ToolsTests", dependencies: ["Tools", "AgentRuntime", "Chrono", "JSONKit", "Postgres", "TestSupport"]),
        .testTarget(
            name: "ExtractorTests",
            dependencies: ["Extractors", "AgentRuntime", "Chrono", "Evals", "JSONKit", "JobsEval", "JobsKit", "PromptKit", "Postgres", "SeededRandom",
                           "TestSupport", "YAMLKit"],
            // The dummy sixth feature's prompt, schema, migration and labelled fixture (Features/SixthFeature*Tests.swift).
            resources: [.copy("Resources/SixthFeature")]
        ),
        .testTarget(name: "EvalsTests", dependencies: ["Evals", "Chrono", "FeatureKit", "JSONKit", "YAMLKit"]),
        .testTarget(name: "ChronoTests", dependencies: ["Chrono"]),
        .testTarget(name: "ProactiveTests", dependencies: ["Proactive", "Chrono", "JSONKit", "Migrations", "Postgres", "TestSupport"]),
        .testTarget(
            name: "JobsKitTests",
            dependencies: [
                "JobsKit", "JobsEval", "Bench", "BuildStamp", "CLISupport", "Chrono", "Extractors", "Evals", "Migrations", "Postgres", "PromptKit", "Proactive", "Providers", "SeededRandom", "TestSupport", "AgentRuntime", "JSONKit",
                "MetricsEndpoint",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "BenchTests",
            dependencies: ["Bench", "JobsKit", "AgentRuntime", "Chrono", "JSONKit", "Postgres", "TestSupport"]
        ),
    ]
)
